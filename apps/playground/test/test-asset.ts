import { join } from 'node:path';
import { createTinyPolicy } from '@taorl/model/node';
import { DEMO_CONFIG, demoPrompts, demoTask, loadConfig, writeAsset } from '../scripts/demo-asset';

/**
 * Writes the policy asset of a built site (`site`/policy/) for the tests: a model of the demo's shape
 * (apps/trainer/base/config.json: the byte tokenizer's 259 ids, token shift on), freshly initialised and saved as
 * `taorl sft` saves its policy, with the demo's first `prompts` held-out prompts and its RL task, the config's
 * fields changed by `overrides` (`--set` form, e.g. 'rl.groups=2'). `work` holds the saved folder.
 */
export async function writeTestAsset(
  site: string,
  work: string,
  prompts = 4,
  overrides: readonly string[] = [],
): Promise<void> {
  const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 512, tokenShift: true, seed: 5 });
  await policy.save(join(work, 'sft-policy'));
  policy.dispose();
  const config = loadConfig(DEMO_CONFIG, [...overrides]);
  writeAsset(join(work, 'sft-policy'), join(site, 'policy'), demoPrompts(config, prompts), demoTask(config));
}
