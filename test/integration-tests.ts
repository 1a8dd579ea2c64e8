/**
 * The test files `pnpm test:unit` leaves out: those that start a sandbox, a trainer run (the `taorl` command, a
 * training loop, a served model) or a child process, or drive a browser. `pnpm test` runs them all. In the unit
 * tier every child_process function throws (test/support/unit-tier-guard.ts), so a file that starts a process
 * (the sandbox does) and is missing here fails there, naming this list.
 */
export const integrationTests: readonly string[] = [
  'test/no-outside-paths.test.ts',
  'packages/data/test/arith-tool.test.ts',
  'packages/sandbox/test/cli.test.ts',
  'packages/sandbox/test/isolation.test.ts',
  'packages/sandbox/test/local.test.ts',
  'packages/sandbox/test/sandboxfusion.test.ts',
  'packages/sandbox/test/security-runs.test.ts',
  'packages/sandbox/test/security.test.ts',
  'packages/sandbox/test/serve-verl.test.ts',
  'packages/sandbox/test/serve.test.ts',
  'packages/sandbox/test/unprivileged.test.ts',
  'apps/trainer/test/ablate/ablation.test.ts',
  'apps/trainer/test/benchmark-eval-cli.test.ts',
  'apps/trainer/test/benchmark-eval.test.ts',
  'apps/trainer/test/checkpoint.test.ts',
  'apps/trainer/test/cli-errors.test.ts',
  'apps/trainer/test/cli.test.ts',
  'apps/trainer/test/demo.test.ts',
  'apps/trainer/test/file-sources.test.ts',
  'apps/trainer/test/remote/eval-endpoint-padded-vocab.test.ts',
  'apps/trainer/test/remote/eval-endpoint-settings.test.ts',
  'apps/trainer/test/remote/eval-endpoint.test.ts',
  'apps/trainer/test/remote/remote-token-shift.test.ts',
  'apps/trainer/test/remote/remote-training-failover.test.ts',
  'apps/trainer/test/remote/remote-training-lanes.test.ts',
  'apps/trainer/test/remote/remote-training.test.ts',
  'apps/trainer/test/remote/serve-cli.test.ts',
  'apps/trainer/test/remote/serve-security.test.ts',
  'apps/trainer/test/report-browser.test.ts',
  'apps/trainer/test/rl-loop.test.ts',
  'apps/trainer/test/rollout-padded-vocab.test.ts',
  'apps/trainer/test/rollout-workers.test.ts',
  'apps/trainer/test/rollout.test.ts',
  'apps/trainer/test/run-folder.test.ts',
  'apps/trainer/test/sft-data-parallel.test.ts',
  'apps/trainer/test/sft-resume.test.ts',
];
