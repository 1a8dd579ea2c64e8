import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { RemotePolicyError, RemoteServersUnavailableError, type SamplingParams } from '../../src/index.js';
import { fakeEngineLifecycle, fakeGenerate, VOCAB } from './remote-policy-fakes.js';

// RemotePolicy when servers fail: transient failures are survived on other servers with every sample answered
// exactly once; all servers down ends in one clear error; malformed answers fail at once, naming URL and field.

const { startEngine, remotePolicy } = fakeEngineLifecycle();

/** A loopback URL nothing listens on. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Resolves once `condition` holds, checking every few milliseconds of real time (never a deadline). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

const greedy: SamplingParams = { maxNewTokens: 5, temperature: 0, stopStrings: ['xyz'] };

/** What the fake server answers `prompt` with under `greedy`. */
const greedyIds = (prompt: ArrayLike<number>) =>
  fakeGenerate(Array.from(prompt), {
    maxNewTokens: greedy.maxNewTokens,
    temperature: 0,
    seed: undefined,
    stopTokenIds: [],
    stopStrings: greedy.stopStrings ?? [],
    topLogprobs: 0,
  }).ids;
const promptKey = (body: Record<string, unknown>) => JSON.stringify(body.prompt ?? body.input_ids);

describe.each(['openai', 'sglang'] as const)('RemotePolicy failures over %s', (api) => {
  it('survives servers that close connections, answer 503 or hang, losing and duplicating no sample', async () => {
    // The clock is the test's: no request times out until every sample is answered or held by the hanging server,
    // then time jumps past the timeout, so how fast the machine is cannot decide which requests time out.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const closer = await startEngine({ api, misbehave: 'close' });
    const overloaded = await startEngine({ api, misbehave: '503' });
    const hanging = await startEngine({ api, misbehave: 'hang' });
    const healthy = await startEngine({ api });
    const servers = [closer, overloaded, hanging, healthy];
    const timeoutMs = 400;
    const policy = remotePolicy(api, servers, { timeoutMs, cooldownMs: 60_000, maxAttempts: 4 });
    const prompts = Array.from({ length: 16 }, (_, i) => Int32Array.from([i, (5 * i) % 30]));
    const generating = policy.generate(prompts, greedy);
    // Settled: each sample is either answered by the healthy server or in flight on the hanging one, having
    // reached it. Nothing changes from there until the clock moves.
    await until(() => {
      const [closing, refusing, held, answering] = policy.stats();
      return (
        closing!.inFlight + refusing!.inFlight + answering!.inFlight === 0 &&
        held!.inFlight === hanging.requests.length &&
        held!.inFlight + answering!.requests === prompts.length
      );
    });
    expect(hanging.requests.length).toBeGreaterThan(0);
    vi.advanceTimersByTime(timeoutMs);
    const results = await generating;

    expect(results).toHaveLength(prompts.length);
    results.forEach((result, i) => {
      expect(Array.from(result.tokens)).toEqual(greedyIds(prompts[i]!));
    });
    // Only the healthy server answers, and it answered each prompt exactly once.
    expect(healthy.answered.map(promptKey).sort()).toEqual(
      prompts.map((prompt) => JSON.stringify(Array.from(prompt))).sort(),
    );
    const stats = policy.stats();
    expect(stats.map((server) => server.url)).toEqual(servers.map((server) => server.url));
    for (const failing of stats.slice(0, 3)) {
      expect(failing.failures).toBeGreaterThan(0);
      expect(failing.failures).toBe(failing.requests);
      expect(failing.coolingDown).toBe(true);
    }
    expect(stats[0]!.lastFailure).toContain(closer.url);
    expect(stats[1]!.lastFailure).toContain('HTTP 503');
    expect(stats[2]!.lastFailure).toContain(`no answer within ${timeoutMs} ms`);
    expect(stats[3]).toMatchObject({ failures: 0, lastFailure: null, inFlight: 0, requests: prompts.length });
    // Every failure was retried once, and no sample was retried without a failure.
    const sum = (key: 'retries' | 'failures') => stats.reduce((total, server) => total + server[key], 0);
    expect(sum('retries')).toBe(sum('failures'));
  });

  it('resends a sample whose kept-alive connection the server closed as it arrived, counting no failure', async () => {
    const racy = await startEngine({ api, misbehave: 'keep-alive-race' });
    const policy = remotePolicy(api, [racy], { retryDelayMs: 5, cooldownMs: 5 });
    const prompts = [Int32Array.from([1, 2]), Int32Array.from([3, 4])];
    const results = [...(await policy.generate([prompts[0]!], greedy))];
    // Once the answer is read, its connection goes back to the client's pool: the next sample is sent on it.
    await new Promise((resolve) => setImmediate(resolve));
    results.push(...(await policy.generate([prompts[1]!], greedy)));

    expect(racy.keepAliveDrops).toBeGreaterThan(0);
    expect(results.map((result) => Array.from(result.tokens))).toEqual(prompts.map(greedyIds));
    expect(racy.answered.map(promptKey)).toEqual(prompts.map((prompt) => JSON.stringify(Array.from(prompt))));
    // The server did not fail: a connection it closed while idle is the client's to replace, not a retry.
    expect(policy.stats()[0]).toMatchObject({ retries: 0, failures: 0, lastFailure: null });
  });

  it('throws after maxAttempts when every server is down, listing each server last failure', async () => {
    const overloaded = await startEngine({ api, misbehave: '503' });
    const refused = await refusedUrl();
    const policy = remotePolicy(api, [refused, overloaded], {
      maxAttempts: 3,
      retryDelayMs: 5,
      cooldownMs: 5,
    });
    const failure = await policy.generate([Int32Array.from([1, 2])], greedy).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(RemoteServersUnavailableError);
    const { message } = failure as Error;
    expect(message).toContain('in 3 attempts');
    expect(message).toContain(`${refused} -> `);
    expect(message).toContain('ECONNREFUSED');
    expect(message).toContain(`${overloaded.url} -> `);
    expect(message).toContain('HTTP 503');
    const stats = policy.stats();
    expect(stats.reduce((total, server) => total + server.requests, 0)).toBe(3);
    expect(stats.reduce((total, server) => total + server.failures, 0)).toBe(3);
  });

  it('times out a hanging server even while garbage is collected (no timer lost to GC)', async () => {
    // AbortSignal.any([AbortSignal.timeout(ms)]) loses its timer to GC on Node 20 (nodejs/node#57736).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const hanging = await startEngine({ api, misbehave: 'hang' });
    const policy = remotePolicy(api, [hanging], {
      timeoutMs: 200,
      maxAttempts: 2,
      retryDelayMs: 1,
      cooldownMs: 1,
    });
    const collecting = setInterval(gc, 10);
    const prompts = Array.from({ length: 8 }, (_, i) => Int32Array.from([i]));
    const failure = await policy.generate(prompts, greedy).catch((error: Error) => error);
    clearInterval(collecting);
    expect(failure).toBeInstanceOf(RemoteServersUnavailableError);
    expect((failure as Error).message).toContain('no answer within 200 ms');
  });

  it('fails requests in flight and later calls once closed', async () => {
    const hanging = await startEngine({ api, misbehave: 'hang' });
    const policy = remotePolicy(api, [hanging]);
    const pending = policy.generate([Int32Array.from([1, 2])], greedy).catch((error: Error) => error);
    await until(() => hanging.requests.length > 0);
    await policy.close();
    expect(await pending).toBeInstanceOf(RemotePolicyError);
    await expect(policy.generate([Int32Array.from([1, 2])], greedy)).rejects.toThrow(/closed/);
  });
});

type Json = Record<string, unknown>;
const choice = (answer: Json) => (answer.choices as Json[])[0]!;
const logprobs = (answer: Json) => choice(answer).logprobs as Json;
const meta = (answer: Json) => answer.meta_info as Json;

const malformed: [string, 'openai' | 'sglang', (answer: Json) => unknown, string][] = [
  [
    'missing token_ids',
    'openai',
    (answer) => {
      delete choice(answer).token_ids;
      return answer;
    },
    'choices[0].token_ids missing — start vLLM >= 0.10.2 and send return_token_ids',
  ],
  [
    'a log-prob count that disagrees',
    'openai',
    (answer) => {
      (logprobs(answer).token_logprobs as number[]).pop();
      return answer;
    },
    'choices[0].logprobs.token_logprobs has 2 entries but token_ids has 3',
  ],
  ['a body that is not JSON', 'openai', () => '<html>Bad Gateway</html>', 'the body is not JSON'],
  [
    'an id outside the vocabulary',
    'openai',
    (answer) => {
      (choice(answer).token_ids as number[])[1] = VOCAB;
      return answer;
    },
    `choices[0].token_ids[1] is ${VOCAB}, outside the vocabulary [0, ${VOCAB})`,
  ],
  [
    'alternatives keyed by text instead of token ids',
    'openai',
    (answer) => {
      (logprobs(answer).top_logprobs as Json[])[0] = { d: -0.1 };
      return answer;
    },
    'choices[0].logprobs.top_logprobs[0] key "d" is not "token_id:N" — send return_tokens_as_token_ids',
  ],
  [
    'missing output_ids',
    'sglang',
    (answer) => {
      delete answer.output_ids;
      return answer;
    },
    'output_ids missing',
  ],
  [
    'a log-prob count that disagrees',
    'sglang',
    (answer) => {
      (meta(answer).output_token_logprobs as unknown[]).pop();
      return answer;
    },
    'meta_info.output_token_logprobs has 2 entries but output_ids has 3',
  ],
  [
    'an id outside the vocabulary',
    'sglang',
    (answer) => {
      (answer.output_ids as number[])[0] = VOCAB + 5;
      return answer;
    },
    `output_ids[0] is ${VOCAB + 5}, outside the vocabulary`,
  ],
  [
    'a log-prob that is not a number',
    'sglang',
    (answer) => {
      (meta(answer).output_token_logprobs as unknown[][])[2]![0] = '-0.5';
      return answer;
    },
    'meta_info.output_token_logprobs[2][0] must be a finite number, got string "-0.5"',
  ],
  ['a body that is not JSON', 'sglang', () => 'upstream connect error', 'the body is not JSON'],
];

describe('RemotePolicy on malformed answers', () => {
  it.each(malformed)(
    'fails at once on %s (%s), naming the URL and the field',
    async (_, api, mutate, detail) => {
      const engine = await startEngine({ api, mutate: (answer) => mutate(answer) });
      const other = await startEngine({ api, mutate: (answer) => mutate(answer) });
      const policy = remotePolicy(api, [engine, other]);
      // [5, 2] greedily continues 3 4 5 then stops on the stop string "ef": three tokens.
      const failure = await policy
        .generate([Int32Array.from([5, 2])], { maxNewTokens: 5, temperature: 0, stopStrings: ['ef'] })
        .catch((error: Error) => error);
      expect(failure).toBeInstanceOf(RemotePolicyError);
      expect(failure).not.toBeInstanceOf(RemoteServersUnavailableError);
      const path = api === 'openai' ? '/v1/completions' : '/generate';
      expect((failure as Error).message).toContain(`${engine.url}${path}: ${detail}`);
      // Not retried, neither there nor on the other server.
      expect(engine.requests.length + other.requests.length).toBe(1);
    },
  );

  it('does not retry an HTTP 4xx (here: a model the server does not serve)', async () => {
    const engine = await startEngine({ api: 'openai' });
    const policy = remotePolicy('openai', [engine], { model: 'not-served' });
    await expect(policy.generate([Int32Array.from([1])], greedy)).rejects.toThrow(
      `${engine.url}/v1/completions: HTTP 404: {"error":{"message":"The model not-served does not exist."}}`,
    );
    expect(engine.requests).toHaveLength(1);
  });
});

describe('RemotePolicy on answers over its limits', () => {
  it('stops reading an endless body at maxResponseBytes and fails naming the server and the limit', async () => {
    const endless = await startEngine({ api: 'sglang', misbehave: 'endless' });
    const policy = remotePolicy('sglang', [endless], { maxResponseBytes: 1 << 20 });
    const failure = await policy.generate([Int32Array.from([1, 2])], greedy).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(RemotePolicyError);
    expect((failure as Error).message).toBe(
      `${endless.url}/generate: the answer is larger than ${1 << 20} bytes (the client's limit)`,
    );
    expect(endless.requests).toHaveLength(1);
  });

  it('fails on a million-deep JSON answer naming the server, not with a stack overflow', async () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const engine = await startEngine({ api: 'openai', mutate: () => deep });
    const policy = remotePolicy('openai', [engine]);
    const failure = await policy.generate([Int32Array.from([1, 2])], greedy).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(RemotePolicyError);
    expect((failure as Error).message).toBe(
      `${engine.url}/v1/completions: the answer nests deeper than 64 levels (the client's limit)`,
    );
  });
});
