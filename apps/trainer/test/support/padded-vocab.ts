import { ByteTokenizer } from '@taorl/data';
import * as tf from '@tensorflow/tfjs';
import { createTinyPolicy, type TransformerPolicy } from '../../src/index.js';

/** The byte tokenizer: 259 ids. */
export const byteTokenizer = new ByteTokenizer();

/** More rows than the tokenizer has ids, as Qwen3's 151936 for a 151669-token tokenizer. */
export const PADDED_VOCAB = 300;

/**
 * A tiny model over PADDED_VOCAB ids whose padding rows (ids from the tokenizer's size on) win: their rows of the
 * tied embedding are random sign vectors times 10, so at every position the best of them scores far above any real
 * token. Sampling from the whole vocabulary would draw padding ids nearly every time, greedy decoding always.
 */
export function paddedVocabPolicy(seed: number, maxPositionEmbeddings = 128): TransformerPolicy {
  const policy = createTinyPolicy({ vocabSize: PADDED_VOCAB, maxPositionEmbeddings, seed });
  const embedding = policy.trainableVariables().find((v) => v.name.endsWith('model.embed_tokens.weight'))!;
  const [rows, width] = embedding.shape as [number, number];
  const real = byteTokenizer.vocabSize;
  tf.tidy(() => {
    const signs = tf.sub(
      tf.mul(tf.cast(tf.randomUniformInt([rows - real, width], 0, 2, seed), 'float32'), 2),
      1,
    );
    embedding.assign(tf.concat([tf.slice(embedding, [0, 0], [real, width]), tf.mul(signs, 10)], 0));
  });
  return policy;
}
