import type { FilterableTrajectory } from '../src/index';

export interface TestTrajectory extends FilterableTrajectory {
  readonly id: number;
  readonly groupId: string;
  readonly correct: boolean;
  readonly reward: number;
  readonly lossMask: Uint8Array;
}

const STATUSES = ['ok', 'error', 'timeout', 'sandbox_error'];

/** A batch of question groups with random sizes, verdicts, tool-call outcomes and void turns. */
export function randomBatch(random: () => number): TestTrajectory[] {
  const batch: TestTrajectory[] = [];
  const groups = Math.floor(random() * 8);
  for (let g = 0; g < groups; g++) {
    const size = 1 + Math.floor(random() * 6);
    const bias = random();
    for (let k = 0; k < size; k++) {
      const calls = Math.floor(random() * 4);
      const okBias = random();
      const correct = random() < bias;
      batch.push({
        id: batch.length,
        groupId: `q${g}`,
        correct,
        reward: correct ? 1 : 0,
        toolCalls: Array.from({ length: calls }, () => ({
          status: random() < okBias ? 'ok' : STATUSES[1 + Math.floor(random() * 3)]!,
        })),
        lossMask: Uint8Array.from({ length: 4 + Math.floor(random() * 8) }, () => (random() < 0.7 ? 1 : 0)),
        voidTurn: random() < 0.1,
      });
    }
  }
  // Interleave groups, as a rollout engine may return them.
  for (let i = batch.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [batch[i], batch[j]] = [batch[j]!, batch[i]!];
  }
  return batch;
}

/** Freeze the objects and arrays of a batch (typed arrays cannot be frozen: compare copies of them instead). */
export function freezeBatch<T extends FilterableTrajectory>(batch: T[]): readonly T[] {
  for (const t of batch) {
    for (const call of t.toolCalls) Object.freeze(call);
    Object.freeze(t.toolCalls);
    Object.freeze(t);
  }
  return Object.freeze(batch);
}

/** A deep snapshot for checking that nothing was mutated. */
export function snapshot(batch: readonly FilterableTrajectory[]): string {
  return JSON.stringify(batch, (_key, value) => (value instanceof Uint8Array ? Array.from(value) : value));
}
