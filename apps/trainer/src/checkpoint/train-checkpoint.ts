import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AdamWState } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { TrainingPhase } from '../config/run-record.js';
import type { Policy } from '../model/policy.js';
import { encodeSafetensors, readSafetensors } from '../model/safetensors.js';
import { writeFileAtomic } from '../util/atomic-write.js';

/** What a run must know to continue: with counter-based seeds (util/seeds.ts) the step is the whole RNG state. */
export interface TrainState {
  phase: TrainingPhase;
  /** Steps of `phase` completed. */
  step: number;
  seed: number;
}

interface LatestPointer extends TrainState {
  /** The weights file, relative to the checkpoints folder. */
  file: string;
  /** The optimizer's step count when its moments are stored beside the weights (`optimizer.m.i`, `optimizer.v.i`). */
  optimizerStep?: number;
}

/** A checkpoint found by {@link latestCheckpoint}: its state, weights file and optimizer step (if stored). */
export interface CheckpointRef extends TrainState {
  path: string;
  optimizerStep?: number;
}

const LATEST = 'latest.json';

/** A checkpoint's file name: nothing else (no folder, no `..`) may be named by latest.json or pruned. */
const CHECKPOINT_FILE = /^(sft|rl)-step-\d{6,}\.safetensors$/;

/** The folder of a run's checkpoints and latest.json. */
export const checkpointsDir = (runDir: string) => join(runDir, 'checkpoints');

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
 * checkpoint. Two checkpoints of the phase stay: the one just written and the one latest.json named before it;
 * every other checkpoint file of the phase is removed, whatever its step (by name, a stale checkpoint of an
 * earlier, longer run would sort above this run's).
 */
export async function saveTrainCheckpoint(
  runDir: string,
  policy: Policy,
  state: TrainState,
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
  const file = `${state.phase}-step-${String(state.step).padStart(6, '0')}.safetensors`;
  const previous = pointedFile(dir);
  writeFileAtomic(join(dir, file), encodeSafetensors(tensors, { format: 'taorl-train-checkpoint' }));
  const pointer: LatestPointer = {
    ...state,
    file,
    ...(optimizer === undefined ? {} : { optimizerStep: optimizer.step }),
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

/** The state of the latest checkpoint in a run folder, or null when it has none. */
export function latestCheckpoint(runDir: string): CheckpointRef | null {
  const pointerPath = join(checkpointsDir(runDir), LATEST);
  if (!existsSync(pointerPath)) return null;
  let pointer: LatestPointer;
  try {
    pointer = JSON.parse(readFileSync(pointerPath, 'utf8')) as LatestPointer;
  } catch (error) {
    throw new Error(`${pointerPath}: unreadable checkpoint pointer: ${(error as Error).message}`);
  }
  const { phase, step, seed, file, optimizerStep } = pointer;
  if (
    (phase !== 'sft' && phase !== 'rl') ||
    !Number.isInteger(step) ||
    !Number.isInteger(seed) ||
    typeof file !== 'string' ||
    (optimizerStep !== undefined && !Number.isInteger(optimizerStep))
  ) {
    throw new Error(
      `${pointerPath}: expected {phase, step, seed, file, optimizerStep?}, got ${JSON.stringify(pointer)}`,
    );
  }
  // latest.json is data in a folder anyone may have copied or edited: it may name only a checkpoint file of this
  // folder, and that file must be there (not a link to somewhere else).
  if (!CHECKPOINT_FILE.test(file)) {
    throw new Error(
      `${pointerPath}: names ${JSON.stringify(file)}, not a checkpoint file of ${checkpointsDir(runDir)} ` +
        '(<phase>-step-<n>.safetensors)',
    );
  }
  const path = join(checkpointsDir(runDir), file);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new Error(`${pointerPath}: names ${file}, which is missing`);
  if (!stat.isFile()) throw new Error(`${pointerPath}: names ${file}, which is not a regular file`);
  return { phase, step, seed, path, ...(optimizerStep === undefined ? {} : { optimizerStep }) };
}

/**
 * Loads a checkpoint's weights into the policy (shapes and tensor count must match exactly) and returns the
 * optimizer state stored with them, or null for a checkpoint written without one.
 */
export async function restoreTrainCheckpoint(
  checkpoint: Pick<CheckpointRef, 'path' | 'optimizerStep'>,
  policy: Policy,
): Promise<AdamWState | null> {
  const { path, optimizerStep } = checkpoint;
  const file = await readSafetensors(path);
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
    return file.read(location);
  };
  for (const [i, variable] of variables.entries()) {
    const values = read(`policy.${i}`, variable.shape);
    tf.tidy(() => variable.assign(tf.tensor(values, variable.shape)));
  }
  if (optimizerStep === undefined) return null;
  const moments = (kind: 'm' | 'v') =>
    variables.map((variable, i) => read(`optimizer.${kind}.${i}`, variable.shape));
  return { step: optimizerStep, firstMoments: moments('m'), secondMoments: moments('v') };
}
