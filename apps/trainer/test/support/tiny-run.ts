/**
 * `--set` assignments that shrink any preset to a run of seconds: a few SFT steps on 16 traces, two RL steps of
 * 2 groups x 2, 4 held-out problems, one sandbox worker.
 */
export const tinyRunOverrides: readonly string[] = [
  'sft.steps=3',
  'sft.minutes=0',
  'sft.examples=16',
  'rl.steps=2',
  'rl.minutes=0',
  'rl.groups=2',
  'rl.groupSize=2',
  'rl.maxGenBatches=1',
  'rollout.maxResponseTokens=32',
  'task.testSize=4',
  'tool.sandbox={name: local, workers: 1, preload: []}',
];
