import { ConfigError } from './config-error.js';

/**
 * Config fields renamed to the option of the package they set (GrpoUpdater's and SftTrainer's `learningRate`,
 * `maxGradNorm`, `microBatchRows`), old dotted path -> new. The old names are still read, with a warning, until
 * the next minor version; then this table goes.
 */
export const renamedFields: Readonly<Record<string, string>> = {
  'sft.lr': 'sft.learningRate',
  'rl.lr': 'rl.learningRate',
  'rl.gradClip': 'rl.maxGradNorm',
  'rl.microBatch': 'rl.microBatchRows',
};

/** The notice a config that uses an old name gets. */
export const renamedNotice = (old: string): string =>
  `${old} is now ${renamedFields[old]}; the old name is read until the next minor version`;

/**
 * Moves every field of a raw config (parsed YAML, or a recorded run's config) that has an old name to its new
 * name, reporting each to `warn`. Both names given is an error naming the source, since either value could be
 * meant.
 */
export function renameOldFields(
  raw: Record<string, unknown>,
  source: string,
  warn: (notice: string) => void,
): void {
  for (const [old, current] of Object.entries(renamedFields)) {
    const [section, oldKey] = old.split('.') as [string, string];
    const newKey = current.split('.')[1]!;
    const fields = raw[section];
    if (
      typeof fields !== 'object' ||
      fields === null ||
      Array.isArray(fields) ||
      !Object.hasOwn(fields, oldKey)
    )
      continue;
    const values = fields as Record<string, unknown>;
    if (Object.hasOwn(values, newKey)) {
      throw new ConfigError(source, old, `renamed to ${current}, which is given too: keep only ${current}`);
    }
    values[newKey] = values[oldKey];
    delete values[oldKey];
    warn(renamedNotice(old));
  }
}
