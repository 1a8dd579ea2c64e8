import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError, HfTokenizer, type HfTokenizerConfig } from '@taorl/data';

async function readJson<T>(path: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DataError(
      `cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      {
        file: path,
      },
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new DataError(`not valid JSON (${(error as Error).message})`, { file: path });
  }
}

/** Loads tokenizer.json and tokenizer_config.json (and chat_template.jinja when present) from a model folder. */
export async function loadHfTokenizer(dir: string): Promise<HfTokenizer> {
  // Read in order so a folder missing both files always reports tokenizer.json first.
  const json = await readJson<object>(join(dir, 'tokenizer.json'));
  const config = await readJson<HfTokenizerConfig>(join(dir, 'tokenizer_config.json'));
  // Newer model folders keep the chat template in its own file instead of tokenizer_config.json.
  if (config.chat_template === undefined || config.chat_template === null) {
    const template = await readFile(join(dir, 'chat_template.jinja'), 'utf8').catch(() => undefined);
    if (template !== undefined) config.chat_template = template;
  }
  try {
    return new HfTokenizer(json, config);
  } catch (error) {
    throw new DataError((error as Error).message, { file: join(dir, 'tokenizer.json') });
  }
}
