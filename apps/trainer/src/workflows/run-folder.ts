import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AdamWState } from '@taorl/grpo';
import {
  type CheckpointRef,
  checkpointsDir,
  latestCheckpoint,
  latestPointerPath,
  restoreTrainCheckpoint,
  type TrainState,
} from '../checkpoint/train-checkpoint.js';
import { ConfigError } from '../config/config-error.js';
import { type ConfigFile, configFileForm, isMapping } from '../config/config-file-form.js';
import {
  type ConfigFieldChange,
  RUN_RECORD,
  type RunRecord,
  runRecordOf,
  runRecordText,
} from '../config/run-record.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { loadedPluginModules } from '../plugins/plugin-modules.js';
import { type MetricsLine, MetricsWriter } from '../report/metrics.js';
import type { Session } from '../session/session.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { notRegularFile } from '../util/regular-file.js';

/** What a training command (`taorl sft`, `taorl rl`) was asked to do with the run already in its outDir. */
export interface RunFolderFlags {
  /** Continue from checkpoints/latest.json. */
  resume: boolean;
  /** Delete the run in outDir (checkpoints, metrics, recorded config) and start a new one. */
  overwrite: boolean;
  /** With resume: continue although the config differs from the recorded one (the change is recorded). */
  allowConfigChange: boolean;
}

const METRICS = 'metrics.jsonl';

/**
 * Fields a resumed run may change without --allow-config-change: where the run lives, how long it goes on, how
 * often it checkpoints and evaluates, how many worker threads it uses (the default is the machine's core count, so
 * a run resumed on another machine changes it; the same trajectories and RL updates for any number, and SFT's
 * shards sum to the same gradient up to float summation order), and how it reaches its inference servers. None
 * changes what a step computes (RL's learning rate is constant, so more RL steps only extend the run; SFT's cosine
 * schedule spans sft.steps, so that one is guarded).
 */
const OPERATIONAL_FIELDS = [
  'outDir',
  'rl.steps',
  'rl.minutes',
  'sft.minutes',
  'rl.checkpointEvery',
  'sft.checkpointEvery',
  'eval.',
  'workers',
  'remote.endpoints',
  'remote.timeoutMs',
  'remote.maxAttempts',
  'remote.maxConcurrentPerServer',
];

const operational = (field: string) =>
  OPERATIONAL_FIELDS.some((prefix) => (prefix.endsWith('.') ? field.startsWith(prefix) : field === prefix));

/** What `taorl sft|rl` will do with its outDir: a new run, or continuing `latest` with these config changes. */
export interface RunPlan {
  latest: CheckpointRef | null;
  /** Every field that differs from the recorded config (empty for a new run or an unrecorded one). */
  changes: ConfigFieldChange[];
  /** The run's record, null for a new run or a run written before records were kept. */
  record: RunRecord | null;
}

const flagsHint = 'continue it with --resume, or pass --overwrite to delete its checkpoints and metrics';

/** Why outDir already holds a run, in words, or null when it holds none. */
function existingRun(outDir: string): string | null {
  if (existsSync(latestPointerPath(outDir))) return 'a run with checkpoints';
  const metrics = join(outDir, METRICS);
  if (existsSync(metrics) && statSync(metrics).size > 0) return `a run's ${METRICS}`;
  return null;
}

/** What --overwrite deletes: the old run's checkpoints, metrics and record. */
const overwrittenPaths = (outDir: string) => [
  checkpointsDir(outDir),
  join(outDir, METRICS),
  join(outDir, RUN_RECORD),
];

/** Why `folder` cannot hold files a run writes (a link, a file), or why one of its entries is no regular file. */
function folderProblem(folder: string): string | null {
  const stat = lstatSync(folder, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  if (!stat.isDirectory())
    return `${folder} is ${stat.isSymbolicLink() ? 'a symbolic link, ' : ''}not a folder`;
  for (const name of readdirSync(folder)) {
    const problem = notRegularFile(join(folder, name));
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * Refuses an outDir where a file the run reads back or writes in place is not a regular file, naming it: reading
 * /dev/zero or a FIFO never ends, writing to /dev/null loses the run. What --overwrite deletes is not looked at then.
 */
function checkRunFiles(outDir: string, source: string, overwrite: boolean): void {
  const skipped = overwrite ? overwrittenPaths(outDir) : [];
  const files = [METRICS, RUN_RECORD, 'report.html'].map((name) => join(outDir, name));
  const problems = [
    ...files.filter((path) => !skipped.includes(path)).map(notRegularFile),
    ...[checkpointsDir(outDir), join(outDir, 'policy')]
      .filter((path) => !skipped.includes(path))
      .map(folderProblem),
  ];
  const problem = problems.find((found) => found !== null) ?? null;
  if (problem !== null) {
    throw new ConfigError(
      source,
      'outDir',
      `${problem}: a run keeps only regular files it created in its folder; remove it, or choose another outDir`,
    );
  }
}

/** The run record in `dir`, or null when it has none. A malformed one is a ConfigError naming it. */
function readRunRecord(dir: string, source: string): RunRecord | null {
  const path = join(dir, RUN_RECORD);
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(source, 'outDir', `${path}: unreadable run record: ${(error as Error).message}`);
  }
  if (!isMapping(raw))
    throw new ConfigError(source, 'outDir', `${path}: unreadable run record: expected {config, changes}`);
  // Renamed fields are read under their new names, silently: the resumed config is compared, not the record.
  return runRecordOf(raw, path, () => undefined);
}

/** Leaf values of a config by dotted path (a plug-in option as rl.loss.clipHigh; lists compared as JSON). */
function flatten(value: unknown, prefix: string, into: Map<string, string>): Map<string, string> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value))
      flatten(item, prefix === '' ? key : `${prefix}.${key}`, into);
  } else into.set(prefix, JSON.stringify(value));
  return into;
}

/** The fields whose values differ between two configs as config files write them, in the order the schema lists them. */
export function configChanges(before: ConfigFile, after: ConfigFile): ConfigFieldChange[] {
  const a = flatten(before, '', new Map());
  const b = flatten(after, '', new Map());
  const fields = [...new Set([...b.keys(), ...a.keys()])];
  const parse = (text: string | undefined) => (text === undefined ? undefined : JSON.parse(text));
  return fields
    .filter((field) => a.get(field) !== b.get(field))
    .map((field) => ({ field, before: parse(a.get(field)), after: parse(b.get(field)) }));
}

const describeChange = (change: ConfigFieldChange) =>
  `${change.field} ${JSON.stringify(change.before)} -> ${JSON.stringify(change.after)}`;

const runOf = (runId: string | undefined) =>
  runId === undefined ? 'no run id (saved before run ids were kept)' : `run ${runId}`;

/**
 * A checkpoint is resumed only into the run it belongs to: latest.json and run-config.json must name the same run
 * (a folder without a record adopts the checkpoint's run).
 */
function checkSameRun(outDir: string, source: string, latest: CheckpointRef, record: RunRecord | null): void {
  if (record === null || latest.runId === record.runId) return;
  throw new ConfigError(
    source,
    'outDir',
    `cannot resume: ${latestPointerPath(outDir)} names ${runOf(latest.runId)}, ${join(outDir, RUN_RECORD)} names ` +
      `${runOf(record.runId)}: the checkpoints are another run's (copied into this folder?); resume the folder ` +
      'they came from, or pass --overwrite to start a new run here',
  );
}

/**
 * Decides what a training command does with its outDir, before anything starts, and changes nothing: a folder
 * where a file of the run is not a regular file is refused; a new run into a folder that holds one is refused
 * unless --overwrite; --resume checks that latest.json names a checkpoint of the same run, phase and seed inside the
 * folder and that the config is the recorded one (or --allow-config-change). Every refusal is a ConfigError naming
 * the field and what to do.
 */
export function planRun(
  config: TrainerConfig,
  source: string,
  phase: TrainState['phase'],
  flags: RunFolderFlags,
): RunPlan {
  const { outDir } = config;
  if (flags.resume && flags.overwrite)
    throw new ConfigError(source, 'outDir', '--resume and --overwrite exclude each other');
  if (flags.allowConfigChange && !flags.resume)
    throw new ConfigError(source, 'outDir', '--allow-config-change only applies with --resume');
  checkRunFiles(outDir, source, flags.overwrite);
  if (!flags.resume) {
    const existing = flags.overwrite ? null : existingRun(outDir);
    if (existing !== null)
      throw new ConfigError(source, 'outDir', `${outDir} holds ${existing}: ${flagsHint}`);
    return { latest: null, changes: [], record: null };
  }
  let latest: CheckpointRef | null;
  try {
    latest = latestCheckpoint(outDir);
  } catch (error) {
    throw new ConfigError(source, 'outDir', `cannot resume: ${(error as Error).message}`);
  }
  if (latest === null) return { latest: null, changes: [], record: null };
  if (latest.phase !== phase || latest.seed !== config.seed) {
    throw new ConfigError(
      source,
      'seed',
      `the checkpoint in ${outDir} is ${latest.phase} seed ${latest.seed}`,
    );
  }
  const planned = phase === 'rl' ? config.rl.steps : config.sft.steps;
  if (latest.step > planned) {
    throw new ConfigError(
      source,
      `${phase}.steps`,
      `is ${planned}, but the run being resumed in ${outDir} has done ${latest.step} steps: set ${phase}.steps to ` +
        `${latest.step} or more (resuming with -c ${join(outDir, RUN_RECORD)} keeps the recorded value)`,
    );
  }
  const record = readRunRecord(outDir, source);
  checkSameRun(outDir, source, latest, record);
  if (record !== null && !flags.allowConfigChange)
    checkRecordedPlugins(record, join(outDir, RUN_RECORD), source);
  const changes = record === null ? [] : configChanges(record.config, configFileForm(config));
  const guarded = changes.filter((change) => !operational(change.field));
  if (guarded.length > 0 && !flags.allowConfigChange) {
    throw new ConfigError(
      source,
      guarded.map((change) => change.field).join(', '),
      `differs from the run being resumed (${guarded.map(describeChange).join('; ')}; recorded in ` +
        `${join(outDir, RUN_RECORD)}): resume with the recorded value, or pass --allow-config-change to ` +
        'continue with the change (it is recorded)',
    );
  }
  return { latest, changes, record };
}

/**
 * A resumed run needs the plug-ins it trained with: every module its record names must still be there and be
 * loaded now (from `plugins` or `--plugin`), else the run is refused, naming the module and its file
 * (--allow-config-change continues with the modules loaded now, e.g. a module that moved, and records them).
 */
function checkRecordedPlugins(record: RunRecord, recordPath: string, source: string): void {
  const loaded = new Set(loadedPluginModules().map((plugin) => plugin.path));
  for (const { module, path } of record.plugins ?? []) {
    const recorded = `the run being resumed loaded plug-in module '${module}' (${path}; recorded in ${recordPath})`;
    const problem = !existsSync(path)
      ? 'which is missing now'
      : !loaded.has(path)
        ? `which is not loaded now: name it in plugins or pass --plugin ${path}`
        : null;
    if (problem !== null) {
      throw new ConfigError(
        source,
        'plugins',
        `${recorded}, ${problem} (or pass --allow-config-change to continue with the modules loaded now)`,
      );
    }
  }
}

/** Where a run's notices go: `out` for progress (resuming, the rollout mode), `err` for warnings. */
export interface RunIO {
  out(text: string): void;
  err(text: string): void;
}

/** What a training command continues from: the run's id, the metrics writer, the steps done and the optimizer state. */
export interface OpenedRun {
  /** The id its checkpoints record (`RunRecord.runId`). */
  runId: string;
  writer: MetricsWriter;
  completed: number;
  optimizerState: AdamWState | null;
}

/**
 * Opens the run folder of `taorl sft` / `taorl rl` as `planRun` decided: --overwrite deletes the old run's
 * checkpoints, metrics and record; a new run gets a run id and records it and its config in run-config.json; a
 * resumed run restores the checkpoint's weights (verified: `restoreTrainCheckpoint`), keeps the metrics lines up to
 * its step that `kept` accepts (dropping a line cut off by a full disk, with a warning) and records any config
 * change, and the plug-in modules when they changed. A run recorded before run ids gets one, with a warning.
 */
export async function openRun(
  session: Session,
  phase: TrainState['phase'],
  flags: RunFolderFlags,
  io: RunIO,
  kept: (line: MetricsLine) => boolean,
): Promise<OpenedRun> {
  const { config, source } = session;
  const { outDir } = config;
  const plan = planRun(config, source, phase, flags);
  if (flags.overwrite) {
    const deleted = overwrittenPaths(outDir).filter((path) => existsSync(path));
    for (const path of deleted) rmSync(path, { recursive: true, force: true });
    if (deleted.length > 0) io.out(`--overwrite: deleted ${deleted.join(', ')}\n`);
  }
  mkdirSync(outDir, { recursive: true });
  const writer = new MetricsWriter(join(outDir, METRICS));
  const warn = (notice: string) => io.err(`warning: ${notice}\n`);
  const { latest } = plan;
  // A folder without a record adopts its checkpoint's run (planRun checked that the two agree otherwise).
  const runId = plan.record?.runId ?? latest?.runId ?? randomUUID();
  if (latest === null) {
    writer.truncateAfter(() => false, warn);
    writeRecord(outDir, { runId, config, plugins: [...loadedPluginModules()], changes: [] });
    return { runId, writer, completed: 0, optimizerState: null };
  }
  const optimizerState = await restoreTrainCheckpoint(latest, session.policy);
  if (latest.runId === undefined) {
    warn(
      `${latestPointerPath(outDir)} records no run id and no checksum (a checkpoint saved before they were kept): ` +
        "resumed without checking that it is this run's and intact; the checkpoints saved from now on record both",
    );
  }
  writer.truncateAfter((line) => line.step <= latest.step && kept(line), warn);
  if (plan.record === null) {
    warn(
      `${join(outDir, RUN_RECORD)} is missing (a run from before it was kept): recording the current config`,
    );
    writeRecord(outDir, { runId, config, plugins: [...loadedPluginModules()], changes: [] });
  } else if (
    plan.record.runId === undefined ||
    plan.changes.length > 0 ||
    JSON.stringify(plan.record.plugins ?? []) !== JSON.stringify(loadedPluginModules())
  ) {
    const guarded = plan.changes.filter((change) => !operational(change.field));
    if (guarded.length > 0) warn(`resuming with a changed config: ${guarded.map(describeChange).join('; ')}`);
    writeRecord(outDir, {
      runId,
      config,
      plugins: [...loadedPluginModules()],
      changes:
        plan.changes.length === 0
          ? plan.record.changes
          : [...plan.record.changes, { phase, afterStep: latest.step, fields: plan.changes }],
    });
  }
  io.out(`Resuming after ${phase.toUpperCase()} step ${latest.step} from ${latest.path}\n`);
  return { runId, writer, completed: latest.step, optimizerState };
}

/** Records the run, its config as a config file writes it (`-c <outDir>/run-config.json` runs it again). */
function writeRecord(
  outDir: string,
  record: Omit<RunRecord, 'config' | 'runId'> & { runId: string; config: TrainerConfig },
): void {
  writeFileAtomic(
    join(outDir, RUN_RECORD),
    runRecordText({ ...record, config: configFileForm(record.config) }),
  );
}
