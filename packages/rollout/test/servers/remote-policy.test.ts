import { describe, expect, it } from 'vitest';
import type { GeneratedSequence, SamplingParams } from '../../src/index.js';
import type { RemotePolicy } from '../../src/node.js';
import {
  EOS,
  type FakeEngine,
  fakeEngineLifecycle,
  fakeGenerate,
  MODEL_NAME,
  VOCAB,
} from './remote-policy-fakes.js';

// RemotePolicy against fake vLLM / SGLang engines over real HTTP on loopback: what goes on the wire, what comes
// back (tokens, log-probs, entropies, finish reasons), load spreading and the per-server concurrency limit.

const { startEngine, startEngines, remotePolicy } = fakeEngineLifecycle();

/** Each result is the fake model's answer for its own prompt under `sampling` (prompt i sampled with seed + i). */
function expectAnswers(results: GeneratedSequence[], prompts: Int32Array[], sampling: SamplingParams) {
  expect(results).toHaveLength(prompts.length);
  for (const [i, result] of results.entries()) {
    expectMatches(result, prompts[i]!, sampling, sampling.seed === undefined ? undefined : sampling.seed + i);
  }
}

/** The fake model's answer for `prompt` under `sampling`, as RemotePolicy should return it. */
function expectMatches(
  actual: GeneratedSequence,
  prompt: Int32Array,
  sampling: SamplingParams,
  seed?: number,
) {
  const expected = fakeGenerate(Array.from(prompt), {
    maxNewTokens: sampling.maxNewTokens,
    temperature: sampling.temperature ?? 1,
    seed,
    stopTokenIds: sampling.stopTokenIds ?? [],
    stopStrings: sampling.stopStrings ?? [],
    topLogprobs: 0,
  });
  expect(Array.from(actual.tokens)).toEqual(expected.ids);
  expect(Array.from(actual.logProbs)).toEqual(Array.from(Float32Array.from(expected.logProbs)));
  expect(actual.finishReason).toBe(expected.finish.kind);
  expect(actual.stopString).toBe(expected.finish.kind === 'stop_string' ? expected.finish.stop : undefined);
}

const exactEntropy = (logProbs: Float64Array) => logProbs.reduce((sum, lp) => sum - Math.exp(lp) * lp, 0);

// Greedy continuations count up from the prompt's last id: [5, 2] -> 3 4 5 = "def" (stop string "ef"),
// [1, 36] -> 37 38 EOS, [3, 17] -> 18 19 20 (stop id 20), [7, 10] -> 11..16 (length).
const prompts = [
  [5, 2],
  [1, 36],
  [3, 17],
  [7, 10],
].map((ids) => Int32Array.from(ids));
const greedy: SamplingParams = {
  maxNewTokens: 6,
  temperature: 0,
  stopTokenIds: [EOS, 20],
  stopStrings: ['ef', '```'],
};

describe.each(['openai', 'sglang'] as const)('RemotePolicy over %s', (api) => {
  it('round-trips tokens, log-probs and every finish reason, keeping stop ids and stop-string tokens', async () => {
    const engine = await startEngine({ api });
    const results = await remotePolicy(api, [engine]).generate(prompts, greedy);
    expect(results).toHaveLength(prompts.length);
    expectAnswers(results, prompts, greedy);
    expect(results.map((result) => result.finishReason)).toEqual([
      'stop_string',
      'stop_token',
      'stop_token',
      'length',
    ]);
    expect(Array.from(results[0]!.tokens)).toEqual([3, 4, 5]);
    expect(results[0]!.stopString).toBe('ef');
    expect(Array.from(results[1]!.tokens)).toEqual([37, 38, EOS]);
    expect(Array.from(results[2]!.tokens)).toEqual([18, 19, 20]);
  });

  it('sends every sampling knob explicitly, the stop conditions, and greedy as temperature 0', async () => {
    const engine = await startEngine({ api });
    await remotePolicy(api, [engine], { topLogprobs: 3 }).generate(prompts.slice(0, 1), greedy);
    const body = engine.requests[0]!;
    // Both engines name these knobs alike.
    const sharedKnobs = {
      temperature: 0,
      top_p: 1,
      top_k: -1,
      min_p: 0,
      repetition_penalty: 1,
      stop: ['ef', '```'],
      stop_token_ids: [EOS, 20],
      skip_special_tokens: false,
    };
    if (api === 'openai') {
      expect(body).toMatchObject({
        model: MODEL_NAME,
        prompt: [5, 2],
        max_tokens: 6,
        ...sharedKnobs,
        include_stop_str_in_output: true,
        logprobs: 3,
        return_token_ids: true,
        return_tokens_as_token_ids: true,
      });
      expect(body).not.toHaveProperty('seed');
    } else {
      expect(body).toMatchObject({
        input_ids: [5, 2],
        sampling_params: { max_new_tokens: 6, ...sharedKnobs, no_stop_trim: true },
        return_logprob: true,
        top_logprobs_num: 3,
        logprob_start_len: -1,
      });
      expect(body.sampling_params).not.toHaveProperty('sampling_seed');
    }
  });

  it('sends seed + index per prompt and returns what each seed sampled', async () => {
    const engine = await startEngine({ api });
    const sampling: SamplingParams = { maxNewTokens: 8, temperature: 1.5, topP: 0.9, topK: 7, seed: 1000 };
    const many = Array.from({ length: 6 }, (_, i) => Int32Array.from([i, 2 * i]));
    const results = await remotePolicy(api, [engine]).generate(many, sampling);
    expectAnswers(results, many, sampling);
    for (const body of engine.requests) {
      const prompt = (api === 'openai' ? body.prompt : body.input_ids) as number[];
      const params = (api === 'openai' ? body : body.sampling_params) as Record<string, unknown>;
      expect(params[api === 'openai' ? 'seed' : 'sampling_seed']).toBe(1000 + prompt[0]!);
      expect(params).toMatchObject({ temperature: 1.5, top_p: 0.9, top_k: 7 });
    }
    // Different seeds sample different continuations (the sampler is not ignoring them).
    expect(new Set(results.map((result) => Array.from(result.tokens).join(','))).size).toBeGreaterThan(1);
  });

  it('estimates entropies from the top alternatives: exact with all ids, an upper bound with few, surprisal with none', async () => {
    const engine = await startEngine({ api });
    const params = {
      maxNewTokens: 10,
      temperature: 1.3,
      seed: 7,
      stopTokenIds: [],
      stopStrings: [],
      topLogprobs: 0,
    };
    const sampling: SamplingParams = { maxNewTokens: 10, temperature: 1.3, seed: 7 };
    const prompt = [Int32Array.from([4, 9])];
    const expected = fakeGenerate([4, 9], params);
    const exact = expected.distributions.map(exactEntropy);

    const [all] = await remotePolicy(api, [engine], { topLogprobs: VOCAB }).generate(prompt, sampling);
    for (const [i, entropy] of all!.entropies.entries()) expect(entropy).toBeCloseTo(exact[i]!, 5);

    const [few] = await remotePolicy(api, [engine], { topLogprobs: 3 }).generate(prompt, sampling);
    const estimates = Array.from(few!.entropies);
    for (const [i, entropy] of estimates.entries()) expect(entropy).toBeGreaterThanOrEqual(exact[i]! - 1e-5);
    expect(estimates.some((entropy, i) => entropy - exact[i]! > 1e-3)).toBe(true);

    const [none] = await remotePolicy(api, [engine], { topLogprobs: 0 }).generate(prompt, sampling);
    expect(Array.from(none!.entropies)).toEqual(Array.from(none!.logProbs).map((logProb) => -logProb));
    expect(engine.requests.map((body) => body.logprobs ?? body.top_logprobs_num)).toEqual([VOCAB, 3, 0]);
  });

  it('spreads prompts evenly over three servers, each answered once, in order', async () => {
    const servers = await startEngines(3, { api });
    const many = Array.from({ length: 30 }, (_, i) => Int32Array.from([i, 3]));
    const results = await remotePolicy(api, servers).generate(many, greedy);
    expectAnswers(results, many, greedy);
    expect(servers.map((server) => server.answered.length)).toEqual([10, 10, 10]);
  });

  it('never has more than maxConcurrentPerServer requests in flight on a server', async () => {
    // Each server holds its requests until all that the policy has dispatched to it have arrived, so whatever
    // the policy sends at once is in flight at the server at once: a policy past the limit shows as maxInFlight.
    const limit = 2;
    const held = new Map<FakeEngine, (() => void)[]>();
    let policy: RemotePolicy | undefined;
    const beforeAnswer = (engine: FakeEngine) =>
      new Promise<void>((resolve) => {
        const queue = [...(held.get(engine) ?? []), resolve];
        held.set(engine, queue);
        const dispatched = policy!.stats().find((server) => server.url === engine.url)!.inFlight;
        if (queue.length >= dispatched) for (const release of queue.splice(0)) release();
      });
    const servers = await startEngines(3, { api, beforeAnswer });
    policy = remotePolicy(api, servers, { maxConcurrentPerServer: limit });
    const many = Array.from({ length: 24 }, (_, i) => Int32Array.from([i, 11]));
    const results = await policy.generate(many, greedy);
    expectAnswers(results, many, greedy);
    expect(servers.map((server) => server.maxInFlight)).toEqual([limit, limit, limit]);
    expect(servers.reduce((sum, server) => sum + server.answered.length, 0)).toBe(many.length);
  });
});

describe('RemotePolicy model discovery (openai)', () => {
  it('asks GET /v1/models once when no model is given, and uses its first id', async () => {
    const engine = await startEngine({ api: 'openai' });
    const policy = remotePolicy('openai', [engine], { model: undefined });
    await policy.generate(prompts, greedy);
    await policy.generate(prompts, greedy);
    expect(engine.modelListRequests).toBe(1);
    expect(engine.requests.every((body) => body.model === MODEL_NAME)).toBe(true);
  });

  it('accepts a base URL ending in /v1', async () => {
    const engine = await startEngine({ api: 'openai' });
    const policy = remotePolicy('openai', [engine], { endpoints: [`${engine.url}/v1/`] });
    const [result] = await policy.generate(prompts.slice(0, 1), greedy);
    expect(Array.from(result!.tokens)).toEqual([3, 4, 5]);
  });
});
