import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '@taorl/trainer';
import { DEMO_CONFIG, demoPrompts, demoTask, loadConfig, writeAsset } from './demo-asset';

// `pnpm --filter @taorl/playground asset [--seed N] [--steps N] [--out DIR]`: runs the SFT phase of `taorl demo`
// (its config, apps/trainer/configs/demo.yaml, with `taorl sft`) and writes the policy it saves, with held-out
// prompts, to public/policy/, which the site serves at policy/.

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    steps: { type: 'string' },
    out: { type: 'string', default: new URL('../public/policy', import.meta.url).pathname },
    prompts: { type: 'string', default: '16' },
  },
});
const overrides = [
  `seed=${values.seed}`,
  ...(values.steps === undefined ? [] : [`sft.steps=${values.steps}`]),
];
const run = mkdtempSync(join(tmpdir(), 'taorl-playground-sft-'));
try {
  const args = ['sft', '--config', DEMO_CONFIG, '--out', run, ...overrides.flatMap((o) => ['--set', o])];
  const code = await runCli(args);
  if (code !== 0) throw new Error(`taorl ${args.join(' ')} exited with ${code}`);
  const config = loadConfig(DEMO_CONFIG, overrides);
  writeAsset(join(run, 'policy'), values.out, demoPrompts(config, Number(values.prompts)), demoTask(config));
  for (const name of ['config.json', 'model.safetensors', 'prompts.json', 'task.json']) {
    console.log(`${join(values.out, name)}: ${statSync(join(values.out, name)).size} bytes`);
  }
} finally {
  rmSync(run, { recursive: true, force: true });
}
