import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../model/policy.js';
import { encodeSafetensors, readSafetensorsHeader, readTensor } from '../model/safetensors.js';
import { writeFileAtomic } from './atomic-write.js';

/** What a run must know to continue: with counter-based seeds (util/seeds.ts) the step is the whole RNG state. */
export interface TrainState {
  phase: 'sft' | 'rl';
  /** Steps of `phase` completed. */
  step: number;
  seed: number;
}

interface LatestPointer extends TrainState {
  /** The weights file, relative to the checkpoints folder. */
  file: string;
}

const LATEST = 'latest.json';
const KEEP = 2;

const checkpointsDir = (runDir: string) => join(runDir, 'checkpoints');

/**
 * Writes the policy weights, then points latest.json at them; each file is written atomically (temp, fsync,
 * rename), so a kill at any instant leaves latest.json naming a complete, readable checkpoint. Older checkpoints
 * beyond the last two are removed.
 */
export async function saveTrainCheckpoint(
  runDir: string,
  policy: Policy,
  state: TrainState,
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
  const file = `${state.phase}-step-${String(state.step).padStart(6, '0')}.safetensors`;
  writeFileAtomic(join(dir, file), encodeSafetensors(tensors, { format: 'taorl-train-checkpoint' }));
  const pointer: LatestPointer = { ...state, file };
  writeFileAtomic(join(dir, LATEST), `${JSON.stringify(pointer)}\n`);
  const names = readdirSync(dir);
  const old = names
    .filter((name) => name.endsWith('.safetensors') && name.startsWith(`${state.phase}-step-`))
    .sort()
    .slice(0, -KEEP);
  // Temp files of writers that were killed mid-write (never ours: ours were renamed above).
  const orphans = names.filter((name) => /\.tmp-\d+$/.test(name) && !name.endsWith(`.tmp-${process.pid}`));
  for (const name of [...old, ...orphans]) rmSync(join(dir, name), { force: true });
  return join(dir, file);
}

/** The state of the latest checkpoint in a run folder, or null when it has none. */
export function latestCheckpoint(runDir: string): (TrainState & { path: string }) | null {
  const pointerPath = join(checkpointsDir(runDir), LATEST);
  if (!existsSync(pointerPath)) return null;
  let pointer: LatestPointer;
  try {
    pointer = JSON.parse(readFileSync(pointerPath, 'utf8')) as LatestPointer;
  } catch (error) {
    throw new Error(`${pointerPath}: unreadable checkpoint pointer: ${(error as Error).message}`);
  }
  const { phase, step, seed, file } = pointer;
  if (
    (phase !== 'sft' && phase !== 'rl') ||
    !Number.isInteger(step) ||
    !Number.isInteger(seed) ||
    typeof file !== 'string'
  ) {
    throw new Error(`${pointerPath}: expected {phase, step, seed, file}, got ${JSON.stringify(pointer)}`);
  }
  return { phase, step, seed, path: join(checkpointsDir(runDir), file) };
}

/** Loads a checkpoint's weights into the policy; shapes and tensor count must match exactly. */
export async function restoreWeights(path: string, policy: Policy): Promise<void> {
  const locations = await readSafetensorsHeader(path);
  const variables = policy.trainableVariables();
  if (locations.length !== variables.length) {
    throw new Error(
      `${path}: holds ${locations.length} tensors, the policy has ${variables.length} variables`,
    );
  }
  const byName = new Map(locations.map((location) => [location.name, location]));
  for (const [i, variable] of variables.entries()) {
    const location = byName.get(`policy.${i}`);
    if (location === undefined) throw new Error(`${path}: missing tensor policy.${i}`);
    if (location.shape.join(',') !== variable.shape.join(',')) {
      throw new Error(
        `${path}: policy.${i} has shape [${location.shape}], the policy expects [${variable.shape}]`,
      );
    }
    const values = await readTensor(location);
    tf.tidy(() => variable.assign(tf.tensor(values, variable.shape)));
  }
}
