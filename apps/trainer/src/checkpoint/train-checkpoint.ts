import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AdamWState } from '@taorl/grpo';
import type { Policy } from '@taorl/model';
import { encodeSafetensors } from '@taorl/model';
import { readSafetensors } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import type { TrainingPhase } from '../config/run-record.js';
import { writeFileAtomic } from '../util/atomic-write.js';

/** What a run must know to continue: with counter-based seeds (util/seeds.ts) the step is the whole RNG state. */
export interface TrainState {
  phase: TrainingPhase;
  /** Steps of `phase` completed. */
  step: number;
  seed: number;
}

/** A checkpoint's state and the run it belongs to: the id its run record keeps (`RunRecord.runId`). */
export interface CheckpointState extends TrainState {
  runId: string;
}

/** Where a training loop saves its checkpoints, and the run they belong to. */
export interface CheckpointTarget {
  runDir: string;
  runId: string;
}

interface LatestPointer extends TrainState {
  /** The weights file, relative to the checkpoints folder. */
  file: string;
  /** The optimizer's step count when its moments are stored beside the weights (`optimizer.m.i`, `optimizer.v.i`). */
  optimizerStep?: number;
  /** Absent (both) in a pointer written before checkpoints recorded their run and checksum. */
  runId?: string;
  /** SHA-256 of the weights file, hex. */
  sha256?: string;
}

/**
 * A checkpoint found by {@link latestCheckpoint}: its state, weights file, optimizer step (if stored), and the run
 * and checksum it was saved with (absent for a checkpoint saved before they were recorded).
 */
export interface CheckpointRef extends TrainState {
  path: string;
  optimizerStep?: number;
  runId?: string;
  sha256?: string;
}

const LATEST = 'latest.json';

/** A checkpoint's file name: nothing else (no folder, no `..`) may be named by latest.json or pruned. */
const CHECKPOINT_FILE = /^(sft|rl)-step-\d{6,}\.safetensors$/;

/** The folder of a run's checkpoints and latest.json. */
export const checkpointsDir = (runDir: string) => join(runDir, 'checkpoints');

/** The pointer naming a run's latest checkpoint. */
export const latestPointerPath = (runDir: string) => join(checkpointsDir(runDir), LATEST);

/** The weights file of a phase's step: the only file a pointer of that phase and step may name. */
const checkpointFile = (state: TrainState) =>
  `${state.phase}-step-${String(state.step).padStart(6, '0')}.safetensors`;

/** The format tag of a checkpoint's weights file; its metadata also names the run, phase, step and seed. */
const FORMAT = 'taorl-train-checkpoint';

/** latest.json's weights file, or null when there is no pointer or it cannot be read (pruning then keeps it all). */
function pointedFile(dir: string): string | null {
  try {
    const { file } = JSON.parse(readFileSync(join(dir, LATEST), 'utf8')) as { file?: unknown };
    return typeof file === 'string' ? file : null;
  } catch {
    return null;
  }
}

/**
 * Writes the policy weights and, when given, the optimizer's moments, then points latest.json at them; each file is
 * written atomically (temp, fsync, rename), so a kill at any instant leaves latest.json naming a complete, readable
 * checkpoint. The weights file's metadata and latest.json name the run and step; latest.json also keeps the file's
 * SHA-256, which `restoreTrainCheckpoint` verifies. Two checkpoints of the phase stay: the one just written and the
 * one latest.json named before it; every other checkpoint file of the phase is removed, whatever its step (by name,
 * a stale checkpoint of an earlier, longer run would sort above this run's).
 */
export async function saveTrainCheckpoint(
  runDir: string,
  policy: Policy,
  state: CheckpointState,
  optimizer?: AdamWState,
): Promise<string> {
  const dir = checkpointsDir(runDir);
  mkdirSync(dir, { recursive: true });
  const variables = policy.trainableVariables();
  const tensors = await Promise.all(
    variables.map(async (variable, i) => ({
      name: `policy.${i}`,
      shape: variable.shape,
      data: (await variable.data()) as Float32Array,
    })),
  );
  if (optimizer !== undefined) {
    for (const [kind, moments] of [
      ['m', optimizer.firstMoments],
      ['v', optimizer.secondMoments],
    ] as const) {
      moments.forEach((data, i) => {
        tensors.push({ name: `optimizer.${kind}.${i}`, shape: variables[i]!.shape, data });
      });
    }
  }
  const file = checkpointFile(state);
  const previous = pointedFile(dir);
  const bytes = encodeSafetensors(tensors, { format: FORMAT, ...metadataOf(state) });
  writeFileAtomic(join(dir, file), bytes);
  const pointer: LatestPointer = {
    ...state,
    file,
    ...(optimizer === undefined ? {} : { optimizerStep: optimizer.step }),
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
  writeFileAtomic(join(dir, LATEST), `${JSON.stringify(pointer)}\n`);
  const names = readdirSync(dir);
  const old = names.filter(
    (name) =>
      CHECKPOINT_FILE.test(name) &&
      name.startsWith(`${state.phase}-step-`) &&
      name !== file &&
      name !== previous,
  );
  // Temp files of writers that were killed mid-write (never ours: ours were renamed above).
  const orphans = names.filter((name) => /\.tmp-\d+$/.test(name) && !name.endsWith(`.tmp-${process.pid}`));
  for (const name of [...old, ...orphans]) rmSync(join(dir, name), { force: true });
  return join(dir, file);
}

/** What a weights file's metadata records of its checkpoint (safetensors metadata holds strings only). */
const metadataOf = (state: CheckpointState): Record<string, string> => ({
  runId: state.runId,
  phase: state.phase,
  step: String(state.step),
  seed: String(state.seed),
});

/**
 * The state of the latest checkpoint in a run folder, or null when it has none. latest.json is data in a folder
 * anyone may have copied or edited: it is refused unless it names the weights file of its own phase and step in
 * this folder, a regular file that is there (so it cannot point past the checkpoints that exist).
 */
export function latestCheckpoint(runDir: string): CheckpointRef | null {
  const pointerPath = join(checkpointsDir(runDir), LATEST);
  if (!existsSync(pointerPath)) return null;
  let pointer: LatestPointer;
  try {
    pointer = JSON.parse(readFileSync(pointerPath, 'utf8')) as LatestPointer;
  } catch (error) {
    throw new Error(`${pointerPath}: unreadable checkpoint pointer: ${(error as Error).message}`);
  }
  const { phase, step, seed, file, optimizerStep, runId, sha256 } = pointer;
  if (
    (phase !== 'sft' && phase !== 'rl') ||
    !Number.isInteger(step) ||
    step < 0 ||
    !Number.isInteger(seed) ||
    typeof file !== 'string' ||
    (optimizerStep !== undefined && !Number.isInteger(optimizerStep)) ||
    (runId !== undefined && (typeof runId !== 'string' || runId === '')) ||
    (sha256 !== undefined && (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))) ||
    (runId === undefined) !== (sha256 === undefined)
  ) {
    throw new Error(
      `${pointerPath}: expected {phase, step, seed, file, optimizerStep?, runId, sha256} (runId and sha256 both ` +
        `or, in a checkpoint saved before they were recorded, neither), got ${JSON.stringify(pointer)}`,
    );
  }
  if (!CHECKPOINT_FILE.test(file)) {
    throw new Error(
      `${pointerPath}: names ${JSON.stringify(file)}, not a checkpoint file of ${checkpointsDir(runDir)} ` +
        '(<phase>-step-<n>.safetensors)',
    );
  }
  if (file !== checkpointFile({ phase, step, seed })) {
    throw new Error(
      `${pointerPath}: says ${phase} step ${step} but names ${file}, not ${checkpointFile({ phase, step, seed })}: ` +
        'latest.json was edited or belongs to another checkpoint; it may name only the weights file of its own step',
    );
  }
  const path = join(checkpointsDir(runDir), file);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new Error(`${pointerPath}: names ${file}, which is missing`);
  if (!stat.isFile()) throw new Error(`${pointerPath}: names ${file}, which is not a regular file`);
  return {
    phase,
    step,
    seed,
    path,
    ...(optimizerStep === undefined ? {} : { optimizerStep }),
    ...(runId === undefined || sha256 === undefined ? {} : { runId, sha256 }),
  };
}

/**
 * Loads a checkpoint's weights into the policy (shapes and tensor count must match exactly) and returns the
 * optimizer state stored with them, or null for a checkpoint written without one. A checkpoint that records its run
 * and checksum is verified first: the file's SHA-256 must be the one latest.json recorded (a flipped byte, a file
 * replaced), and its metadata must name the run, phase, step and seed latest.json does. Every value read must be
 * finite. Each refusal names the file and what differs.
 */
export async function restoreTrainCheckpoint(
  checkpoint: CheckpointRef,
  policy: Policy,
): Promise<AdamWState | null> {
  const { path, optimizerStep } = checkpoint;
  const file = await readSafetensors(path);
  verifyCheckpointFile(checkpoint, file.sha256(), file.metadata);
  const locations = file.tensors;
  const variables = policy.trainableVariables();
  const expected = variables.length * (optimizerStep === undefined ? 1 : 3);
  if (locations.length !== expected) {
    throw new Error(`${path}: holds ${locations.length} tensors, expected ${expected} for this policy`);
  }
  const byName = new Map(locations.map((location) => [location.name, location]));
  const read = (name: string, shape: readonly number[]): Float32Array => {
    const location = byName.get(name);
    if (location === undefined) throw new Error(`${path}: missing tensor ${name}`);
    if (location.shape.join(',') !== shape.join(',')) {
      throw new Error(`${path}: ${name} has shape [${location.shape}], the policy expects [${shape}]`);
    }
    const values = file.read(location);
    const at = values.findIndex((value) => !Number.isFinite(value));
    if (at >= 0) {
      throw new Error(
        `${path}: ${name}[${at}] is ${values[at]}, not a finite number (the run diverged before it was saved, or ` +
          'the file was changed): it is not resumed; start anew with --overwrite, or from a copy of the run folder ' +
          'made before',
      );
    }
    return values;
  };
  const weights = variables.map((variable, i) => read(`policy.${i}`, variable.shape));
  const moments = (kind: 'm' | 'v') =>
    variables.map((variable, i) => read(`optimizer.${kind}.${i}`, variable.shape));
  // Everything is read (and checked) before the policy changes: a refused checkpoint leaves it as it was.
  const optimizer =
    optimizerStep === undefined
      ? null
      : { step: optimizerStep, firstMoments: moments('m'), secondMoments: moments('v') };
  for (const [i, variable] of variables.entries())
    tf.tidy(() => variable.assign(tf.tensor(weights[i]!, variable.shape)));
  return optimizer;
}

/** Refuses a weights file that is not the one latest.json recorded, naming the file and what differs. */
function verifyCheckpointFile(
  checkpoint: CheckpointRef,
  sha256: string,
  metadata: Record<string, string>,
): void {
  const { path, runId } = checkpoint;
  if (runId === undefined || checkpoint.sha256 === undefined) return;
  if (sha256 !== checkpoint.sha256) {
    throw new Error(
      `${path}: its SHA-256 is ${sha256}, latest.json recorded ${checkpoint.sha256}: the file changed after it was ` +
        'saved (corrupted on disk, or replaced); it is not resumed. Restore the file from a copy, or start anew ' +
        'with --overwrite',
    );
  }
  for (const [key, value] of Object.entries(metadataOf({ ...checkpoint, runId }))) {
    if (metadata[key] !== value) {
      throw new Error(
        `${path}: its metadata says ${key} ${JSON.stringify(metadata[key] ?? null)}, latest.json says ` +
          `${JSON.stringify(value)}: the file is another checkpoint's`,
      );
    }
  }
}
