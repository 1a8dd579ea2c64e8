import { ConfigError } from './config-error.js';
import { type ConfigFile, configFileForm, isMapping } from './config-file-form.js';
import type { PluginModule } from './plugin-module.js';
import { renameOldFields } from './renamed-fields.js';

/** A run's record of its config: `<outDir>/run-config.json`. */
export const RUN_RECORD = 'run-config.json';

/**
 * The record's version: 2 keeps the config as a config file writes it, so that the record is itself a config
 * (`-c run-config.json`); records without one (version 1) kept it parsed, each plug-in as `{name, options}`.
 */
const VERSION = 2;

/** The phase of training a run is in; a resumed run's record names the phase each change was made in. */
export type TrainingPhase = 'sft' | 'rl';

/** One config field that differs between the recorded run and the command resuming it. */
export interface ConfigFieldChange {
  /** Dotted path as a config file writes it, e.g. rl.learningRate, rl.loss.clipHigh. */
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * `<outDir>/run-config.json`: the run's id, the config the run trains with (as a config file writes it), the plug-in
 * modules it loaded, and each change made when resuming it.
 */
export interface RunRecord {
  /**
   * Written when the run starts and kept by every checkpoint it saves, so that resuming refuses another run's
   * checkpoints; absent in records written before run ids (the run gets one when resumed).
   */
  runId?: string;
  config: ConfigFile;
  /** The plug-in modules loaded (`plugins`, `--plugin`) and the files they resolved to; absent in older records. */
  plugins?: PluginModule[];
  changes: { phase: TrainingPhase; afterStep: number; fields: ConfigFieldChange[] }[];
}

/** The file's text: the version first, then the record. */
export function runRecordText(record: RunRecord): string {
  return `${JSON.stringify({ version: VERSION, ...record }, null, 2)}\n`;
}

/** True when a config file's top level is a run record rather than a config (`config` is no config field). */
export const isRunRecord = (raw: Record<string, unknown>): boolean =>
  Object.hasOwn(raw, 'config') && Object.hasOwn(raw, 'changes');

/**
 * A run record from the parsed JSON of `path`, its config as a config file writes it whichever version wrote it and
 * under the current field names (`renameOldFields`, notices to `warn`). A malformed record is a ConfigError naming
 * `path` and the field.
 */
export function runRecordOf(
  raw: Record<string, unknown>,
  path: string,
  warn: (notice: string) => void,
): RunRecord {
  const { version, runId, config, plugins, changes } = raw;
  if (version !== undefined && version !== VERSION)
    throw new ConfigError(path, 'version', `expected ${VERSION} or none, got ${JSON.stringify(version)}`);
  if (runId !== undefined && (typeof runId !== 'string' || runId === ''))
    throw new ConfigError(path, 'runId', `expected a non-empty string, got ${JSON.stringify(runId)}`);
  if (!isMapping(config)) throw new ConfigError(path, 'config', 'expected the recorded config (a mapping)');
  if (!Array.isArray(changes)) throw new ConfigError(path, 'changes', 'expected a list');
  if (plugins !== undefined) {
    if (!Array.isArray(plugins)) throw new ConfigError(path, 'plugins', 'expected a list');
    plugins.forEach((plugin: unknown, i) => {
      if (!isMapping(plugin) || typeof plugin.module !== 'string' || typeof plugin.path !== 'string')
        throw new ConfigError(path, `plugins[${i}]`, 'expected {module, path} (strings)');
    });
  }
  const written = version === VERSION ? structuredClone(config) : configFileForm(config);
  // A run recorded before fields were renamed (renamedFields) reads under the new names.
  renameOldFields(written, path, warn);
  return {
    ...(runId === undefined ? {} : { runId }),
    config: written,
    ...(plugins === undefined ? {} : { plugins: plugins as PluginModule[] }),
    changes: changes as RunRecord['changes'],
  };
}
