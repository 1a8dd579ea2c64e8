import { ByteTokenizer, type Tokenizer } from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';

/** Where a session's tokenizer comes from, so a worker thread can load the same one (it cannot be sent). */
export type TokenizerSource = { kind: 'byte' } | { kind: 'hf'; dir: string };

export async function loadTokenizer(source: TokenizerSource): Promise<Tokenizer> {
  return source.kind === 'byte' ? new ByteTokenizer() : loadHfTokenizer(source.dir);
}
