import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionResponse } from '../../src/serve/completions.js';
import type { GenerateResponse } from '../../src/serve/generate.js';
import { startServer } from '../../src/serve/server.js';
import { decode, EOS, GatedPolicy, post, sharpPolicy, tokenizer, until } from './serve-fixture.js';

let policy: TransformerPolicy;
const prompts = ['1+1=', 'The answer is', 'x', 'print(42)', 'Q:'].map((text) =>
  Array.from(tokenizer.encode(text)),
);

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  policy = sharpPolicy(3);
});
afterAll(() => policy.dispose());

describe('taorl serve: batching', () => {
  it('queues requests while the model is busy and serves those with equal settings in one call, each cut at its own max_tokens', async () => {
    const gated = new GatedPolicy(policy);
    const server = await startServer({ policy: gated, decode, modelName: 'tiny', eosTokenId: EOS, port: 0 });
    try {
      gated.hold();
      const completion = (prompt: number[], body: Record<string, unknown>) =>
        post<CompletionResponse>(server.url, '/v1/completions', {
          prompt,
          ignore_eos: true,
          return_token_ids: true,
          ...body,
        });
      // The first request occupies the model; the others arrive while it is busy.
      const first = completion(prompts[0]!, { max_tokens: 4, temperature: 0 });
      await until(() => gated.calls.length === 1);
      const b = completion(prompts[1]!, { max_tokens: 2, temperature: 0, logprobs: 1 });
      const c = post<GenerateResponse>(server.url, '/generate', {
        input_ids: prompts[2],
        sampling_params: { max_new_tokens: 7, temperature: 0, ignore_eos: true },
      });
      const d = completion(prompts[3]!, { max_tokens: 5, temperature: 0 });
      const other = completion(prompts[4]!, { max_tokens: 3, temperature: 0.5, seed: 9 });
      await until(() => server.batcher.queued === 4);
      gated.release();
      const [a, rb, rc, rd, re] = await Promise.all([first, b, c, d, other]);

      // Three model calls: the first request alone, the three greedy ones together, the sampled one.
      expect(gated.calls.map((call) => call.prompts.length)).toEqual([1, 3, 1]);
      expect(gated.calls[1]!.sampling.maxNewTokens).toBe(7);
      const together = await policy.generate(
        [prompts[1]!, prompts[2]!, prompts[3]!].map((p) => Int32Array.from(p)),
        { maxNewTokens: 7, temperature: 0 },
      );
      const expected = (i: number, n: number) => Array.from(together[i]!.tokens.slice(0, n));
      expect(rb.body.choices[0]!.token_ids).toEqual(expected(0, 2));
      expect(rb.body.choices[0]!.logprobs!.token_logprobs).toEqual(
        Array.from(together[0]!.logProbs.slice(0, 2)),
      );
      expect(rc.body.output_ids).toEqual(expected(1, 7));
      expect(rd.body.choices[0]!.token_ids).toEqual(expected(2, 5));
      for (const reply of [rb.body.choices[0]!, rd.body.choices[0]!])
        expect(reply.finish_reason).toBe('length');
      expect(rc.body.meta_info.finish_reason).toEqual({ type: 'length', length: 7 });
      expect(a.body.choices[0]!.token_ids!.length).toBe(4);
      expect(re.body.choices[0]!.token_ids!.length).toBe(3);
      expect(gated.calls[2]!.sampling).toMatchObject({ temperature: 0.5, seed: 9 });
    } finally {
      await server.close();
    }
  });

  it('takes at most max-batch requests per call', async () => {
    const gated = new GatedPolicy(policy);
    const server = await startServer({ policy: gated, decode, modelName: 'tiny', maxBatch: 2, port: 0 });
    try {
      gated.hold();
      const send = (prompt: number[]) =>
        post<CompletionResponse>(server.url, '/v1/completions', { prompt, max_tokens: 2, temperature: 0 });
      const first = send(prompts[0]!);
      await until(() => gated.calls.length === 1);
      const rest = prompts.slice(1).map(send);
      await until(() => server.batcher.queued === 4);
      gated.release();
      const replies = await Promise.all([first, ...rest]);
      expect(replies.every((reply) => reply.status === 200)).toBe(true);
      expect(gated.calls.map((call) => call.prompts.length)).toEqual([1, 2, 2]);
    } finally {
      await server.close();
    }
  });
});
