import { initBackend } from '@taorl/grpo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransformerPolicy } from '../../src/index.js';
import type { CompletionResponse } from '../../src/serve/completions.js';
import type { GenerateResponse } from '../../src/serve/generate.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import { byteTokenizer, PADDED_VOCAB, paddedVocabPolicy } from '../support/padded-vocab.js';
import { post, recomputedLogProbs } from './serve-fixture.js';

// taorl serve over a model with more rows than its tokenizer has ids (Qwen3: 151936 for 151669): the padding ids
// score highest here, so a server that sampled them would fail to decode its own answer.

let policy: TransformerPolicy;
let server: InferenceServer;
const prompt = Array.from(byteTokenizer.encode('Q: 6*7?'));

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  policy = paddedVocabPolicy(3);
  server = await startServer({
    policy,
    decode: (ids, options) => byteTokenizer.decode(ids, options),
    tokenizerVocabSize: byteTokenizer.vocabSize,
    modelName: 'padded',
    port: 0,
  });
});
afterAll(async () => {
  await server.close();
  policy.dispose();
});

describe('taorl serve with a vocabulary padded past the tokenizer', () => {
  it('never samples a padding id: greedy and sampled completions answer 200 with decodable ids', async () => {
    for (const temperature of [0, 1]) {
      const reply = await post<CompletionResponse>(server.url, '/v1/completions', {
        model: 'padded',
        prompt,
        max_tokens: 24,
        temperature,
        seed: 5,
        ignore_eos: true,
        logprobs: 5,
        return_token_ids: true,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const [choice] = reply.body.choices;
      const ids = choice!.token_ids!;
      expect(ids).toHaveLength(24);
      expect(Math.max(...ids)).toBeLessThan(byteTokenizer.vocabSize);
      expect(choice!.text).toBe(byteTokenizer.decode(Int32Array.from(ids), { skipSpecialTokens: true }));
      // Log-probs are those of the model's whole distribution (padding ids included), as the trainer recomputes.
      const recomputed = recomputedLogProbs(
        policy,
        Int32Array.from(prompt),
        Int32Array.from(ids),
        temperature,
      );
      expect(recomputed[0]).toHaveLength(PADDED_VOCAB);
      choice!.logprobs!.token_logprobs.forEach((logProb, k) => {
        const expected = recomputed[k]![ids[k]!]!;
        // float32 logits of magnitude ~100: KV-cache steps and a full forward agree to ~1e-6 relative.
        expect(Math.abs(logProb - expected)).toBeLessThan(1e-5 * Math.max(10, Math.abs(expected)));
      });
      // The padding ids hold nearly all the mass: what was drawn is far from the model's own favourites.
      expect(Math.max(...choice!.logprobs!.token_logprobs)).toBeLessThan(-5);
      for (const top of choice!.logprobs!.top_logprobs) expect(Object.keys(top).length).toBeGreaterThan(0);
    }
  });

  it('the SGLang route too', async () => {
    const reply = await post<GenerateResponse>(server.url, '/generate', {
      input_ids: prompt,
      sampling_params: { max_new_tokens: 16, temperature: 1, ignore_eos: true },
      return_logprob: true,
      top_logprobs_num: 3,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(Math.max(...reply.body.output_ids)).toBeLessThan(byteTokenizer.vocabSize);
  });
});
