import { type Trajectory, trainingSequence } from '@taorl/data';

/** A padded [rows, columns] batch in the shape @taorl/grpo's GrpoUpdater takes. */
export interface PaddedBatch {
  rows: number;
  columns: number;
  tokens: Int32Array;
  lossMask: Uint8Array;
  advantages: Float32Array;
  oldLogProbs: Float32Array;
}

/**
 * Lays trajectories out as rows of prompt + response ids (exactly the rollout's tokens, via @taorl/data's
 * trainingSequence), right-padded with `padId`; advantages are placed at the response's offsets.
 */
export function paddedBatch(
  trajectories: readonly Trajectory[],
  advantages: readonly Float32Array[],
  padId: number,
): PaddedBatch {
  const sequences = trajectories.map(trainingSequence);
  const rows = sequences.length;
  const columns = Math.max(2, ...sequences.map((s) => s.inputIds.length));
  const batch: PaddedBatch = {
    rows,
    columns,
    tokens: new Int32Array(rows * columns).fill(padId),
    lossMask: new Uint8Array(rows * columns),
    advantages: new Float32Array(rows * columns),
    oldLogProbs: new Float32Array(rows * columns),
  };
  sequences.forEach((sequence, row) => {
    const offset = row * columns;
    batch.tokens.set(sequence.inputIds, offset);
    batch.lossMask.set(sequence.lossMask, offset);
    batch.oldLogProbs.set(sequence.oldLogProbs, offset);
    batch.advantages.set(advantages[row]!, offset + sequence.promptLength);
  });
  return batch;
}
