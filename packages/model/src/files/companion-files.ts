import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The files of a Hugging Face model folder, beside config.json and the weights, that loading the folder as a model
 * reads: the tokenizer and its chat template (`loadHfTokenizer` of @taorl/data reads tokenizer.json,
 * tokenizer_config.json and chat_template.jinja), and what transformers, vLLM and SGLang read from the same folder
 * (the special tokens, a slow tokenizer's vocabulary and merges, the generation defaults with the stop ids).
 */
export const COMPANION_FILES: readonly string[] = [
  'tokenizer.json',
  'tokenizer_config.json',
  'chat_template.jinja',
  'special_tokens_map.json',
  'added_tokens.json',
  'vocab.json',
  'merges.txt',
  'generation_config.json',
];

/** The companion files a model folder has, by name, byte for byte (a folder without any, e.g. a tiny model's: empty). */
export async function readCompanionFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (const name of COMPANION_FILES) {
    const path = join(dir, name);
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw new Error(`${path}: cannot read (${error.code ?? error.message})`);
    });
    if (bytes !== undefined) files.set(name, bytes);
  }
  return files;
}
