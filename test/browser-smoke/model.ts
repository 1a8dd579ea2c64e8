import { ByteTokenizer } from '@taorl/data';
import { createTinyPolicy } from '@taorl/model';
import * as tf from '@tensorflow/tfjs';

/**
 * The embedded tiny model from @taorl/model's portable entry on tfjs's plain JavaScript backend (the same arithmetic
 * in a page and in Node): greedy and seeded samples with their log-probs, the training logits, and what `save` says
 * where no folder can be written.
 */
export async function run() {
  await tf.setBackend('cpu');
  const tokenizer = new ByteTokenizer();
  const policy = createTinyPolicy({ vocabSize: tokenizer.vocabSize, seed: 0 });
  try {
    const prompts = ['Q: 2+3=', 'Hello'].map((text) => tokenizer.encode(text));
    const plain = (sequences: Awaited<ReturnType<typeof policy.generate>>) =>
      sequences.map(({ tokens, logProbs, finishReason }) => ({
        tokens: Array.from(tokens),
        logProbs: Array.from(logProbs),
        finishReason,
      }));
    const greedy = plain(await policy.generate(prompts, { maxNewTokens: 6, temperature: 0 }));
    const sampled = plain(await policy.generate(prompts, { maxNewTokens: 6, temperature: 1, seed: 3 }));
    const input = tf.tensor2d([Array.from(prompts[0]!)], undefined, 'int32');
    const logits = policy.logits(input);
    const firstRow = Array.from((await logits.data()).subarray(0, 8));
    tf.dispose([input, logits]);
    const saveError = await policy.save('checkpoint').then(
      () => null,
      (error: Error) => error.message,
    );
    return { backend: tf.getBackend(), greedy, sampled, firstRow, saveError };
  } finally {
    policy.dispose();
  }
}
