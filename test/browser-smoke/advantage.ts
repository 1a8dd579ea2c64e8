import { advantageEstimatorNames, computeAdvantages, getAdvantageEstimator } from '@taorl/advantage';

/** Advantages of a group, the estimator and the shaper found by name in @taorl/advantage's registries. */
export function run() {
  const trajectory = (reward: number) => ({
    groupId: 'q1',
    reward,
    lossMask: Uint8Array.from([1, 1, 0, 0, 1, 1, 1]),
    entropies: Float32Array.from([0.1, 0.4, 0, 0, 2.0, 0.3, 0.2]),
    toolCalls: [{ status: 'ok', startToken: 2, endToken: 4 }],
  });
  const batch = [trajectory(1), trajectory(0), trajectory(0.5)];
  const { sequence, tokens, diagnostics } = computeAdvantages(batch, { estimator: 'grpo', shaper: 'tao' });
  // RLOO by name: each trajectory's baseline is the mean reward of the others in its group.
  const rloo = getAdvantageEstimator('rloo').estimate(Float64Array.from([1, 0, 0.5]), [
    Int32Array.from([0, 1, 2]),
  ]);
  return {
    names: advantageEstimatorNames(),
    sequence: Array.from(sequence),
    tokens: tokens.perTrajectory.map((row) => Array.from(row)),
    shaping: diagnostics.shaping,
    rloo: Array.from(rloo),
  };
}
