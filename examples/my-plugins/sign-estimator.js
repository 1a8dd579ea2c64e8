// @ts-check
import { registerAdvantageEstimator } from '@taorl/advantage';

/**
 * An advantage estimator: +1 above the group's mean reward, -1 below it, 0 at it (the sign of GRPO's advantage,
 * without the scale). `groups` lists each group's trajectory indices.
 */
registerAdvantageEstimator('sign', () => ({
  name: 'sign',
  estimate(rewards, groups) {
    const advantages = new Float64Array(rewards.length);
    for (const group of groups) {
      let mean = 0;
      for (const i of group) mean += /** @type {number} */ (rewards[i]) / group.length;
      for (const i of group) advantages[i] = Math.sign(/** @type {number} */ (rewards[i]) - mean);
    }
    return advantages;
  },
}));
