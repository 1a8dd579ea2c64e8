import { ConfigError } from './config-error.js';

/**
 * Config fields renamed, old dotted path -> new: to the option of the package they set (GrpoUpdater's and
 * SftTrainer's `learningRate`, `maxGradNorm`, `microBatchRows`), and the two worker counts that became the one
 * worker pool (`workers`). The old names are still read, with a warning, until the next minor version; then this
 * table goes.
 */
export const renamedFields: Readonly<Record<string, string>> = {
  'sft.lr': 'sft.learningRate',
  'rl.lr': 'rl.learningRate',
  'rl.gradClip': 'rl.maxGradNorm',
  'rl.microBatch': 'rl.microBatchRows',
  'rollout.workers': 'workers',
  'sft.workers': 'workers',
};

/** The notice a config that uses an old name gets. */
export const renamedNotice = (old: string): string =>
  `${old} is now ${renamedFields[old]}; the old name is read until the next minor version`;

/** The mapping that holds the last key of a dotted path, and that key; null when a section on the way is absent. */
function holder(
  raw: Record<string, unknown>,
  path: string,
): { fields: Record<string, unknown>; key: string } | null {
  const parts = path.split('.');
  let fields: unknown = raw;
  for (const part of parts.slice(0, -1)) {
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return null;
    fields = (fields as Record<string, unknown>)[part];
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return null;
  return { fields: fields as Record<string, unknown>, key: parts.at(-1)! };
}

/**
 * Moves every field of a raw config (parsed YAML, or a recorded run's config) that has an old name to its new
 * name, reporting each to `warn`. An old name given beside its new one is an error naming the source, since either
 * value could be meant. Two old names of one new field (rollout.workers and sft.workers, which every run recorded
 * before the rename holds) give it the larger value: the pool that served either job.
 */
export function renameOldFields(
  raw: Record<string, unknown>,
  source: string,
  warn: (notice: string) => void,
): void {
  const moved = new Set<string>();
  for (const [old, current] of Object.entries(renamedFields)) {
    const from = holder(raw, old);
    if (from === null || !Object.hasOwn(from.fields, from.key)) continue;
    const to = holder(raw, current)!;
    const value = from.fields[from.key];
    delete from.fields[from.key];
    warn(renamedNotice(old));
    if (!Object.hasOwn(to.fields, to.key)) to.fields[to.key] = value;
    else if (!moved.has(current)) {
      throw new ConfigError(source, old, `renamed to ${current}, which is given too: keep only ${current}`);
    } else {
      const given = to.fields[to.key];
      if (typeof value === 'number' && typeof given === 'number') to.fields[to.key] = Math.max(value, given);
      else
        throw new ConfigError(
          source,
          old,
          `renamed to ${current}, which another old name sets too: keep only ${current}`,
        );
    }
    moved.add(current);
  }
}
