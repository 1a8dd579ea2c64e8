import { type Trajectory, trainingSequence } from '@taorl/data';
import { padRows } from './padded-rows';

/** A padded [rows, columns] batch in the shape @taorl/grpo's GrpoUpdater takes. */
export interface PaddedBatch {
  /** One row per trajectory. */
  rows: number;
  /** The longest prompt + response (at least 2). */
  columns: number;
  /** rows x columns ids, row-major: prompt then response, right-padded with the pad id. */
  tokens: Int32Array;
  /** 1 on the policy's response tokens, 0 on prompt, observations and padding. */
  lossMask: Uint8Array;
  /** Each token's advantage at its response position, 0 elsewhere. */
  advantages: Float32Array;
  /** The rollout's log-prob of each response token, 0 elsewhere. */
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
  if (advantages.length < trajectories.length) {
    throw new RangeError(
      `paddedBatch: ${trajectories.length} trajectories but advantages for ${advantages.length}`,
    );
  }
  trajectories.forEach((t, i) => {
    for (const field of ['lossMask', 'oldLogProbs', 'entropies'] as const) {
      if (t[field].length !== t.responseIds.length) {
        throw new RangeError(
          `paddedBatch: trajectory ${i} (group ${t.groupId}) has ${t[field].length} ${field} for ` +
            `${t.responseIds.length} response tokens (the rollout engine's log-probs must cover every token)`,
        );
      }
    }
  });
  const sequences = trajectories.map(trainingSequence);
  const rows = sequences.length;
  const columns = Math.max(2, ...sequences.map((s) => s.inputIds.length));
  const size = rows * columns;
  const starts = sequences.map((s) => s.promptLength);
  return {
    rows,
    columns,
    tokens: padRows(
      new Int32Array(size).fill(padId),
      columns,
      sequences.map((s) => s.inputIds),
    ),
    lossMask: padRows(
      new Uint8Array(size),
      columns,
      sequences.map((s) => s.lossMask),
    ),
    advantages: padRows(new Float32Array(size), columns, advantages.slice(0, rows), starts),
    oldLogProbs: padRows(
      new Float32Array(size),
      columns,
      sequences.map((s) => s.oldLogProbs),
    ),
  };
}
