import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import type { RolloutPolicy } from '@taorl/rollout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionResponse } from '../../src/serve/completions.js';
import type { ErrorBody } from '../../src/serve/errors.js';
import type { GenerateResponse } from '../../src/serve/generate.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import {
  decode,
  EOS,
  get,
  MAX_LENGTH,
  post,
  recomputedLogProbs,
  sharpPolicy,
  tokenizer,
} from './serve-fixture.js';

let policy: TransformerPolicy;
let server: InferenceServer;
const prompt = Int32Array.from(tokenizer.encode('Q: 12+30=?\nA:'));

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  policy = sharpPolicy(1);
  server = await startServer({ policy, decode, modelName: 'tiny', eosTokenId: EOS, port: 0 });
});
afterAll(async () => {
  await server.close();
  policy.dispose();
});

const completion = (body: Record<string, unknown>) =>
  post<CompletionResponse>(server.url, '/v1/completions', {
    model: 'tiny',
    prompt: Array.from(prompt),
    ...body,
  });
const generate = (body: Record<string, unknown>) =>
  post<GenerateResponse>(server.url, '/generate', { input_ids: Array.from(prompt), ...body });

describe('taorl serve: information routes', () => {
  it('answers /health, /v1/models and /get_model_info; 404 for an unknown route, 405 for a wrong method', async () => {
    expect((await get(server.url, '/health')).status).toBe(200);
    const models = await get<{ data: { id: string; max_model_len: number }[] }>(server.url, '/v1/models');
    expect(models.body.data).toEqual([expect.objectContaining({ id: 'tiny', max_model_len: MAX_LENGTH })]);
    const info = await get<Record<string, unknown>>(server.url, '/get_model_info');
    expect(info.body).toMatchObject({ model_path: 'tiny', is_generation: true, weight_version: 0 });
    const missing = await get<ErrorBody>(server.url, '/v1/chat/completions');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/no route GET \/v1\/chat\/completions/);
    const wrongMethod = await get<ErrorBody>(server.url, '/generate');
    expect(wrongMethod.status).toBe(405);
  });
});

describe('taorl serve: /v1/completions (vLLM)', () => {
  it("returns vLLM's shape, and greedy ids, text and log-probs equal policy.generate", async () => {
    const [direct] = await policy.generate([prompt], {
      maxNewTokens: 12,
      temperature: 0,
      stopTokenIds: [EOS],
    });
    const reply = await completion({ max_tokens: 12, temperature: 0, return_token_ids: true, logprobs: 0 });
    expect(reply.status).toBe(200);
    const { body } = reply;
    expect(body).toMatchObject({ object: 'text_completion', model: 'tiny', weight_version: 0 });
    expect(body.id).toMatch(/^cmpl-/);
    expect(Number.isInteger(body.created)).toBe(true);
    const [choice] = body.choices;
    expect(choice!.index).toBe(0);
    expect(choice!.token_ids).toEqual(Array.from(direct!.tokens));
    expect(choice!.prompt_token_ids).toEqual(Array.from(prompt));
    expect(choice!.text).toBe(decode(direct!.tokens));
    expect(choice!.logprobs!.token_logprobs).toEqual(Array.from(direct!.logProbs));
    expect(choice!.finish_reason).toBe(direct!.finishReason === 'length' ? 'length' : 'stop');
    expect(body.usage).toEqual({
      prompt_tokens: prompt.length,
      completion_tokens: direct!.tokens.length,
      total_tokens: prompt.length + direct!.tokens.length,
    });
    // Without return_token_ids and logprobs, neither ids nor log-probs are sent.
    const plain = (await completion({ max_tokens: 2, temperature: 0 })).body.choices[0]!;
    expect(plain.token_ids).toBeUndefined();
    expect(plain.logprobs).toBeNull();
  });

  it('top log-probs equal a float64 recomputation at temperature T; tokens as "token_id:N"', async () => {
    const k = 4;
    const reply = await completion({
      max_tokens: 10,
      temperature: 0.7,
      top_k: 20,
      seed: 5,
      ignore_eos: true,
      logprobs: k,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
    });
    const choice = reply.body.choices[0]!;
    const ids = choice.token_ids!;
    expect(ids.length).toBe(10);
    const expected = recomputedLogProbs(policy, prompt, Int32Array.from(ids), 0.7);
    const logprobs = choice.logprobs!;
    expect(logprobs.tokens).toEqual(ids.map((id) => `token_id:${id}`));
    ids.forEach((id, step) => {
      expect(Math.abs(logprobs.token_logprobs[step]! - expected[step]![id]!)).toBeLessThan(1e-5);
      const top = Object.entries(logprobs.top_logprobs[step]!).map(([name, lp]) => [
        Number(name.slice(9)),
        lp,
      ]);
      // The k most likely ids, plus the sampled one when it is not among them.
      expect(top.length === k || (top.length === k + 1 && top[k]![0] === id)).toBe(true);
      for (const [topId, lp] of top) expect(Math.abs(lp! - expected[step]![topId!]!)).toBeLessThan(1e-5);
      const kth = Math.min(...top.slice(0, k).map(([, lp]) => lp!));
      const others = expected[step]!.filter(
        (_, other) => !top.slice(0, k).some(([topId]) => topId === other),
      );
      expect(Math.max(...others)).toBeLessThanOrEqual(kth + 1e-5);
    });
    // text_offset: where each token's text starts.
    expect(logprobs.text_offset[0]).toBe(0);
    expect(logprobs.text_offset[1]).toBe(decode(Int32Array.of(ids[0]!)).length);
  });

  it('a seed reproduces a sample and matches policy.generate with that seed', async () => {
    const sampling = { max_tokens: 8, temperature: 1.2, top_p: 0.9, seed: 77, return_token_ids: true };
    const a = await completion(sampling);
    const b = await completion(sampling);
    const c = await completion({ ...sampling, seed: 78 });
    const [direct] = await policy.generate([prompt], {
      maxNewTokens: 8,
      temperature: 1.2,
      topP: 0.9,
      seed: 77,
      stopTokenIds: [EOS],
    });
    expect(a.body.choices[0]!.token_ids).toEqual(Array.from(direct!.tokens));
    expect(b.body.choices[0]!.token_ids).toEqual(a.body.choices[0]!.token_ids);
    expect(c.body.choices[0]!.token_ids).not.toEqual(a.body.choices[0]!.token_ids);
  });

  it('stops on a stop id (stop_reason = the id) and on a stop string (text cut before or after it)', async () => {
    const free = (
      await completion({ max_tokens: 16, temperature: 0, ignore_eos: true, return_token_ids: true })
    ).body.choices[0]!;
    const ids = free.token_ids!;
    const stopId = ids[5]!;
    const byId = (
      await completion({
        max_tokens: 16,
        temperature: 0,
        ignore_eos: true,
        stop_token_ids: [stopId],
        return_token_ids: true,
      })
    ).body.choices[0]!;
    expect(byId.token_ids).toEqual(ids.slice(0, ids.indexOf(stopId) + 1));
    expect(byId).toMatchObject({ finish_reason: 'stop', stop_reason: stopId });

    const text = decode(Int32Array.from(ids));
    const stop = text.slice(4, 6);
    // The first prefix whose text contains the stop string ends the sequence.
    const end = ids.findIndex((_, n) => decode(Int32Array.from(ids.slice(0, n + 1))).includes(stop)) + 1;
    for (const include of [false, true]) {
      const byString = (
        await completion({
          max_tokens: 16,
          temperature: 0,
          ignore_eos: true,
          stop,
          include_stop_str_in_output: include,
          return_token_ids: true,
        })
      ).body.choices[0]!;
      expect(byString.token_ids).toEqual(ids.slice(0, end));
      expect(byString).toMatchObject({ finish_reason: 'stop', stop_reason: stop });
      const at = text.indexOf(stop);
      expect(byString.text).toBe(text.slice(0, include ? at + stop.length : at));
    }
  });
});

describe('taorl serve: /generate (SGLang)', () => {
  it("returns SGLang's shape; greedy ids and log-probs equal policy.generate; top log-probs per position", async () => {
    const [direct] = await policy.generate([prompt], { maxNewTokens: 9, temperature: 0 });
    const reply = await generate({
      sampling_params: { max_new_tokens: 9, temperature: 0, ignore_eos: true },
      return_logprob: true,
      top_logprobs_num: 3,
    });
    expect(reply.status).toBe(200);
    const { body } = reply;
    expect(body.output_ids).toEqual(Array.from(direct!.tokens));
    expect(body.text).toBe(decode(direct!.tokens));
    expect(body.meta_info).toMatchObject({
      prompt_tokens: prompt.length,
      completion_tokens: 9,
      finish_reason: { type: 'length', length: 9 },
      weight_version: 0,
    });
    expect(body.meta_info.output_token_logprobs).toEqual(
      Array.from(direct!.tokens, (id, i) => [direct!.logProbs[i], id, null]),
    );
    const expected = recomputedLogProbs(policy, prompt, direct!.tokens, 1);
    body.meta_info.output_top_logprobs!.forEach((top, step) => {
      expect(top.length).toBe(3);
      // Greedy: the most likely id is the one generated.
      expect(top[0]![1]).toBe(direct!.tokens[step]);
      for (const [lp, id] of top) expect(Math.abs(lp - expected[step]![id]!)).toBeLessThan(1e-5);
    });
    const bare = await generate({ sampling_params: { max_new_tokens: 2 } });
    expect(bare.body.meta_info.output_token_logprobs).toBeUndefined();
  });

  it('reports the matched stop id or string and trims it from the text unless no_stop_trim', async () => {
    const free = await generate({
      sampling_params: { max_new_tokens: 16, temperature: 0, ignore_eos: true },
    });
    const ids = free.body.output_ids;
    const stopId = ids[4]!;
    const byId = await generate({
      sampling_params: { max_new_tokens: 16, temperature: 0, ignore_eos: true, stop_token_ids: [stopId] },
    });
    const end = ids.indexOf(stopId) + 1;
    expect(byId.body.output_ids).toEqual(ids.slice(0, end));
    expect(byId.body.meta_info.finish_reason).toEqual({ type: 'stop', matched: stopId });
    expect(byId.body.text).toBe(decode(Int32Array.from(ids.slice(0, end - 1))));

    const text = decode(Int32Array.from(ids));
    const stop = text.slice(3, 5);
    const trimmed = await generate({
      sampling_params: { max_new_tokens: 16, temperature: 0, ignore_eos: true, stop: [stop] },
    });
    expect(trimmed.body.meta_info.finish_reason).toEqual({ type: 'stop', matched: stop });
    expect(trimmed.body.text).toBe(text.slice(0, text.indexOf(stop)));
    const kept = await generate({
      sampling_params: { max_new_tokens: 16, temperature: 0, ignore_eos: true, stop, no_stop_trim: true },
    });
    expect(kept.body.text).toBe(text.slice(0, text.indexOf(stop) + stop.length));
  });

  it('stops at the EOS id by default, and ignore_eos turns that off', async () => {
    const eosServer = await startServer({
      policy,
      decode,
      modelName: 'tiny',
      // An EOS the model is sure to produce: its first greedy token.
      eosTokenId: (await generate({ sampling_params: { max_new_tokens: 1, temperature: 0 } })).body
        .output_ids[0],
      port: 0,
    });
    try {
      const stopped = await post<CompletionResponse>(eosServer.url, '/v1/completions', {
        prompt: Array.from(prompt),
        max_tokens: 5,
        temperature: 0,
      });
      expect(stopped.body.choices[0]).toMatchObject({ finish_reason: 'stop', stop_reason: null });
      expect(stopped.body.usage.completion_tokens).toBe(1);
      const ignored = await post<CompletionResponse>(eosServer.url, '/v1/completions', {
        prompt: Array.from(prompt),
        max_tokens: 5,
        temperature: 0,
        ignore_eos: true,
      });
      expect(ignored.body.usage.completion_tokens).toBe(5);
    } finally {
      await eosServer.close();
    }
  });
});

describe('taorl serve: text', () => {
  it('leaves special tokens out of the text unless skip_special_tokens is false', async () => {
    const script = Int32Array.from([...tokenizer.encode('Hi'), EOS, ...tokenizer.encode('!')]);
    const scripted: RolloutPolicy = {
      vocabSize: tokenizer.vocabSize,
      maxSequenceLength: MAX_LENGTH,
      generate: async (prompts, sampling) =>
        prompts.map(() => {
          const tokens = script.slice(0, sampling.maxNewTokens);
          return {
            tokens,
            logProbs: new Float32Array(tokens.length),
            entropies: new Float32Array(tokens.length),
            finishReason: 'length',
          };
        }),
    };
    const scriptedServer = await startServer({ policy: scripted, decode, modelName: 'script', port: 0 });
    try {
      const text = async (body: Record<string, unknown>) =>
        (
          await post<CompletionResponse>(scriptedServer.url, '/v1/completions', {
            prompt: [1],
            max_tokens: 4,
            ...body,
          })
        ).body.choices[0]!.text;
      expect(await text({})).toBe('Hi!');
      expect(await text({ skip_special_tokens: false })).toBe('Hi<|im_end|>!');
      const sglang = await post<GenerateResponse>(scriptedServer.url, '/generate', {
        input_ids: [1],
        sampling_params: { max_new_tokens: 4, skip_special_tokens: false },
      });
      expect(sglang.body.text).toBe('Hi<|im_end|>!');
    } finally {
      await scriptedServer.close();
    }
  });
});

describe('taorl serve: bad requests', () => {
  const long = Array.from({ length: MAX_LENGTH }, () => 65);
  it.each([
    ['/v1/completions', { prompt: 'hello' }, 'prompt', /token ids are required/],
    ['/v1/completions', { prompt: [[1, 2], [3]] }, 'prompt', /one prompt per request/],
    ['/v1/completions', { prompt: [1, 99999] }, 'prompt', /prompt\[1\]: 99999 is not a token id/],
    ['/v1/completions', { prompt: long }, 'prompt', /maximum context length is 64/],
    ['/v1/completions', { prompt: [1], max_tokens: 0 }, 'max_tokens', /integer >= 1/],
    ['/v1/completions', { prompt: long.slice(10), max_tokens: 20 }, 'max_tokens', /at most 10/],
    ['/v1/completions', { prompt: [1], temperature: -1 }, 'temperature', /0 \(greedy\) or a number/],
    ['/v1/completions', { prompt: [1], top_p: 0 }, 'top_p', /\(0, 1\]/],
    ['/v1/completions', { prompt: [1], top_k: -2 }, 'top_k', /integer >= -1/],
    ['/v1/completions', { prompt: [1], n: 2 }, 'n', /2 is not supported; only 1 is \(send n requests\)/],
    // Issue 39 item 6: logits / temperature would overflow, and the log-probs come back null.
    [
      '/v1/completions',
      { prompt: [1], temperature: 1e-310 },
      'temperature',
      /0 \(greedy\) or a number >= 1e-30/,
    ],
    ['/v1/completions', { prompt: [1], temperature: 1e-200 }, 'temperature', /log-probs overflow/],
    [
      '/v1/completions',
      { prompt: [1], logit_bias: { 65: 100 } },
      'logit_bias',
      /not supported; only \{\} is/,
    ],
    ['/v1/completions', { prompt: [1], min_tokens: 3 }, 'min_tokens', /not supported; only 0 is/],
    ['/v1/completions', { prompt: [1], allowed_token_ids: [65] }, 'allowed_token_ids', /only null is/],
    ['/v1/completions', { prompt: [1], logprobs: 21 }, 'logprobs', /\[0, 20\]/],
    ['/v1/completions', { prompt: [1], stop: [''] }, 'stop', /non-empty string/],
    ['/v1/completions', { prompt: [1], stop_token_ids: [-1] }, 'stop_token_ids', /not a token id/],
    ['/v1/completions', { prompt: [1], model: 'other' }, 'model', /serves "tiny"/],
    ['/v1/completions', { prompt: [1], seed: 1.5 }, 'seed', /integer/],
    ['/v1/completions', { prompt: [1], stream: true }, 'stream', /not supported/],
    ['/v1/completions', { prompt: [1], min_p: 0.1 }, 'min_p', /not supported; only 0/],
    ['/generate', { text: 'hello' }, 'text', /token ids are required/],
    [
      '/generate',
      { input_ids: [1], sampling_params: { repetition_penalty: 1.1 } },
      'sampling_params.repetition_penalty',
      /not supported; only 1/,
    ],
    ['/generate', {}, 'input_ids', /required/],
    // Issue 39 item 7: knobs inside sampling_params that were ignored.
    ...(
      [
        [{ logit_bias: { 65: 100 } }, 'logit_bias', /only \{\} is/],
        [{ allowed_token_ids: [65, 66] }, 'allowed_token_ids', /only null is/],
        [{ min_tokens: 4 }, 'min_tokens', /only 0 is/],
        [{ min_new_tokens: 4 }, 'min_new_tokens', /only 0 is/],
        [{ regex: '[0-9]+' }, 'regex', /only null is/],
        [{ n: 2 }, 'n', /only 1 is/],
        [{ temperature: 1e-310 }, 'temperature', /0 \(greedy\) or a number >= 1e-30/],
      ] as const
    ).map(([params, knob, message]): [string, Record<string, unknown>, string, RegExp] => [
      '/generate',
      { input_ids: [1], sampling_params: params },
      `sampling_params.${knob}`,
      message,
    ]),
    ['/generate', { input_ids: [1], sampling_params: 3 }, 'sampling_params', /JSON object/],
    [
      '/generate',
      { input_ids: [1], sampling_params: { max_new_tokens: -1 } },
      'sampling_params.max_new_tokens',
      /integer >= 0/,
    ],
    ['/generate', { input_ids: [1], sampling_params: { top_k: 1.5 } }, 'sampling_params.top_k', /integer/],
    ['/generate', { input_ids: [1], top_logprobs_num: 50 }, 'top_logprobs_num', /\[0, 20\]/],
    ['/generate', { input_ids: [1], return_logprob: 'yes' }, 'return_logprob', /true or false/],
    ['/generate', { input_ids: [1], logprob_start_len: 0 }, 'logprob_start_len', /prompt log-probs/],
    // The same request in vLLM's words is refused alike (it was ignored: no prompt log-probs came back).
    ['/v1/completions', { prompt: [1], prompt_logprobs: 1 }, 'prompt_logprobs', /prompt log-probs/],
    ['/v1/completions', { prompt: [1], prompt_logprobs: 0 }, 'prompt_logprobs', /only null is/],
    ['/v1/completions', { prompt: [1], guided_regex: '[0-9]+' }, 'guided_regex', /only null is/],
    ['/v1/completions', { prompt: [1], use_beam_search: true }, 'use_beam_search', /only false is/],
    ['/update_weights_from_disk', {}, 'model_path', /required/],
  ])('%s %j -> 400 naming %s', async (path, body, param, message) => {
    const reply = await post<ErrorBody>(server.url, path, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(reply.body.error.message).toMatch(message);
    expect(reply.body.error.message).toContain(param);
  });

  it('accepts the neutral values of the knobs it refuses otherwise, and a tiny temperature with finite log-probs', async () => {
    const reply = await generate({
      return_logprob: true,
      top_logprobs_num: 3,
      sampling_params: {
        max_new_tokens: 4,
        temperature: 1e-30,
        n: 1,
        logit_bias: {},
        allowed_token_ids: null,
        min_new_tokens: 0,
        min_tokens: 0,
        regex: null,
        min_p: 0,
      },
    });
    expect(reply.status).toBe(200);
    const greedy = await generate({ sampling_params: { max_new_tokens: 4, temperature: 0 } });
    expect(reply.body.output_ids).toEqual(greedy.body.output_ids);
    const logprobs = [
      ...reply.body.meta_info.output_token_logprobs!.map(([p]) => p),
      ...reply.body.meta_info.output_top_logprobs!.flat().map(([p]) => p),
    ];
    expect(logprobs.length).toBeGreaterThan(4);
    expect(logprobs.every((p) => typeof p === 'number' && Number.isFinite(p))).toBe(true);
  });

  it('refuses a body that is not a JSON object', async () => {
    for (const body of ['{not json', '[1, 2]']) {
      const reply = await post<ErrorBody>(server.url, '/v1/completions', body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.param).toBeNull();
    }
  });
});
