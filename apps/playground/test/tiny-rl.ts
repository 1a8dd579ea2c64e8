/** The demo config made small enough for a test (`--set` form): 2 groups of 2, short responses, one batch. */
export const TINY_RL = [
  'rl.groups=2',
  'rl.groupSize=2',
  'rl.maxGenBatches=1',
  'rollout.maxResponseTokens=48',
  'rollout.maxTurns=2',
];
