import type { ToolCallSpan } from '../src/index';

export interface TestTrajectory {
  readonly groupId: number;
  readonly reward: number;
  readonly lossMask: Uint8Array;
  readonly entropies: Float32Array;
  readonly toolCalls: readonly ToolCallSpan[];
}

const STATUSES = ['ok', 'ok', 'error', 'timeout'];

/**
 * A response built as the rollout builds it: policy segments separated by tool observations (lossMask 0),
 * occasionally an inserted non-policy token inside a segment; entropies on a coarse grid so ties occur.
 */
export function randomTrajectory(random: () => number, groupId: number, reward: number): TestTrajectory {
  const mask: number[] = [];
  const entropies: number[] = [];
  const toolCalls: ToolCallSpan[] = [];
  const policySegment = () => {
    const n = Math.floor(random() * 14);
    for (let k = 0; k < n; k++) {
      mask.push(random() < 0.08 ? 0 : 1);
      entropies.push(random() < 0.05 ? 0 : Math.round(random() * 24) / 8);
    }
  };
  policySegment();
  const calls = Math.floor(random() * 4);
  for (let c = 0; c < calls; c++) {
    const startToken = mask.length;
    const observation = 1 + Math.floor(random() * 6);
    for (let k = 0; k < observation; k++) {
      mask.push(0);
      entropies.push(Math.round(random() * 24) / 8);
    }
    toolCalls.push({
      status: STATUSES[Math.floor(random() * STATUSES.length)]!,
      startToken,
      endToken: mask.length,
    });
    policySegment();
  }
  return {
    groupId,
    reward,
    lossMask: Uint8Array.from(mask),
    entropies: Float32Array.from(entropies),
    toolCalls,
  };
}

export function randomBatch(
  random: () => number,
  rewardKind: 'binary' | 'real' = 'binary',
): TestTrajectory[] {
  const batch: TestTrajectory[] = [];
  const groups = Math.floor(random() * 7);
  for (let g = 0; g < groups; g++) {
    const size = 1 + Math.floor(random() * 6);
    for (let k = 0; k < size; k++) {
      const reward = rewardKind === 'binary' ? (random() < 0.5 ? 1 : 0) : random() * 4 - 2;
      batch.push(randomTrajectory(random, g, reward));
    }
  }
  return batch;
}

/** Copies of every array, to check afterwards that nothing was written to the inputs. */
export function snapshot(batch: readonly TestTrajectory[]): string {
  return JSON.stringify(batch, (_key, value) =>
    value instanceof Uint8Array || value instanceof Float32Array ? Array.from(value) : value,
  );
}

export function freeze<T extends object>(batch: T[]): readonly T[] {
  for (const t of batch) Object.freeze(t);
  return Object.freeze(batch);
}
