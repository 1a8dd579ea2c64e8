import { join } from 'node:path';
import { createTinyPolicy } from '@taorl/model/node';
import { DEMO_CONFIG, demoPrompts, loadConfig, writeAsset } from '../scripts/demo-asset';

/**
 * Writes the policy asset of a built site (`site`/policy/) for the tests: a model of the demo's shape
 * (apps/trainer/base/config.json: the byte tokenizer's 259 ids, token shift on), freshly initialised and saved as
 * `taorl sft` saves its policy, with the demo's first `prompts` held-out prompts. `work` holds the saved folder.
 */
export async function writeTestAsset(site: string, work: string, prompts = 4): Promise<void> {
  const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 512, tokenShift: true, seed: 5 });
  await policy.save(join(work, 'sft-policy'));
  policy.dispose();
  writeAsset(
    join(work, 'sft-policy'),
    join(site, 'policy'),
    demoPrompts(loadConfig(DEMO_CONFIG, []), prompts),
  );
}
