import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Rng } from '@taorl/data';
import { afterEach } from 'vitest';
import { RemotePolicy, type RemotePolicyOptions } from '../../src/node.js';

/**
 * Fake inference engines for RemotePolicy tests: real HTTP servers on loopback that answer in vLLM's
 * /v1/completions and SGLang's /generate shapes, computing their output deterministically from the request with
 * a tiny "model" whose distributions the tests can recompute exactly.
 */

export const VOCAB = 40;
export const EOS = 39;
export const MODEL_NAME = 'fake-model';

/** The tiny model: the successor of the last id is strongly favoured; the other logits vary with the context. */
export function fakeLogits(context: readonly number[]): Float64Array {
  let hash = 2166136261;
  for (const id of context) hash = Math.imul(hash ^ (id + 1), 16777619) >>> 0;
  const logits = new Float64Array(VOCAB);
  for (let id = 0; id < VOCAB; id++) {
    hash = Math.imul(hash ^ (id + 7), 16777619) >>> 0;
    logits[id] = ((hash >>> 8) % 1000) / 500;
  }
  logits[((context.at(-1) ?? 0) + 1) % VOCAB]! += 5;
  return logits;
}

/** log softmax(logits / temperature), in float64. */
export function logSoftmax(logits: Float64Array, temperature: number): Float64Array {
  const scaled = logits.map((logit) => logit / temperature);
  const max = Math.max(...scaled);
  const logSum = max + Math.log(scaled.reduce((sum, value) => sum + Math.exp(value - max), 0));
  return scaled.map((value) => value - logSum);
}

/** The text of an id for stop strings: letters, and EOS as <eos>. */
export function tokenText(id: number): string {
  return id === EOS ? '<eos>' : String.fromCharCode(97 + (id % 26));
}

export interface FakeParams {
  maxNewTokens: number;
  temperature: number;
  seed: number | undefined;
  stopTokenIds: readonly number[];
  stopStrings: readonly string[];
  topLogprobs: number;
}

export type FakeFinish =
  | { kind: 'length' }
  | { kind: 'stop_token'; id: number }
  | { kind: 'stop_string'; stop: string };

export interface FakeOutput {
  ids: number[];
  logProbs: number[];
  /** The distribution's log-probs at each step (for exact entropies). */
  distributions: Float64Array[];
  /** Top alternatives per step, most likely first. */
  top: [number, number][][];
  finish: FakeFinish;
}

/** What the fake model generates for a prompt: greedy at temperature 0 (recorded at 1), else seeded sampling. */
export function fakeGenerate(prompt: readonly number[], params: FakeParams): FakeOutput {
  const context = [...prompt];
  const rng = new Rng(params.seed ?? 1);
  const random = () => rng.next();
  const output: FakeOutput = {
    ids: [],
    logProbs: [],
    distributions: [],
    top: [],
    finish: { kind: 'length' },
  };
  let text = '';
  for (let step = 0; step < params.maxNewTokens; step++) {
    const logProbs = logSoftmax(fakeLogits(context), params.temperature === 0 ? 1 : params.temperature);
    const ranked = [...logProbs.keys()].sort((a, b) => logProbs[b]! - logProbs[a]! || a - b);
    let id = ranked[0]!;
    if (params.temperature > 0) {
      let u = random();
      for (const candidate of ranked) {
        id = candidate;
        u -= Math.exp(logProbs[candidate]!);
        if (u <= 0) break;
      }
    }
    output.ids.push(id);
    output.logProbs.push(logProbs[id]!);
    output.distributions.push(logProbs);
    output.top.push(ranked.slice(0, params.topLogprobs).map((top) => [top, logProbs[top]!]));
    context.push(id);
    text += tokenText(id);
    if (id === EOS || params.stopTokenIds.includes(id)) {
      output.finish = { kind: 'stop_token', id };
      break;
    }
    const stop = params.stopStrings.find((candidate) => text.includes(candidate));
    if (stop !== undefined) {
      output.finish = { kind: 'stop_string', stop };
      break;
    }
  }
  return output;
}

type Json = Record<string, unknown>;

/** How a fake engine treats a generation request. */
/** 'endless': answers 200 and streams a body that never ends, until the client hangs up. */
/**
 * 'keep-alive-race': answers one request per connection and closes the connection, unanswered, when the next
 * request arrives on it (a server whose keep-alive timeout fires as the request comes: Node's and uvicorn's 5 s).
 */
export type Misbehaviour = 'close' | '503' | 'hang' | 'endless' | 'keep-alive-race';

export interface FakeEngineOptions {
  api: 'openai' | 'sglang';
  /** Fails generation requests this way instead of answering. */
  misbehave?: Misbehaviour;
  /** Rewrites the answer before it is sent (a string is sent as the raw body). */
  mutate?: (answer: Json) => unknown;
  /** Awaited before answering a generation request (holds it in flight). */
  beforeAnswer?: (engine: FakeEngine) => Promise<void>;
}

/** One fake vLLM (openai) or SGLang (sglang) server on 127.0.0.1. */
export class FakeEngine {
  /** Generation request bodies received, in arrival order. */
  readonly requests: Json[] = [];
  /** Generation requests answered successfully (their bodies). */
  readonly answered: Json[] = [];
  modelListRequests = 0;
  /** Requests dropped with their kept-alive connection ('keep-alive-race'). */
  keepAliveDrops = 0;
  inFlight = 0;
  maxInFlight = 0;
  private readonly held = new Set<ServerResponse>();
  /** Connections that carried an answered request. */
  private readonly used = new WeakSet<object>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: FakeEngineOptions,
  ) {}

  static async start(options: FakeEngineOptions): Promise<FakeEngine> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const engine = new FakeEngine(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      options,
    );
    server.on('request', (request, response) => {
      engine.handle(request, response).catch((error: Error) => response.writeHead(500).end(error.message));
    });
    return engine;
  }

  async close(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (this.options.misbehave === 'keep-alive-race') {
      if (this.used.has(request.socket)) {
        this.keepAliveDrops++;
        request.socket.destroy();
        return;
      }
      this.used.add(request.socket);
    }
    if (request.method === 'GET' && request.url === '/v1/models' && this.options.api === 'openai') {
      this.modelListRequests++;
      sendJson(response, 200, { object: 'list', data: [{ id: MODEL_NAME, object: 'model' }] });
      return;
    }
    const path = this.options.api === 'openai' ? '/v1/completions' : '/generate';
    if (request.method !== 'POST' || request.url !== path) {
      sendJson(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    this.requests.push(body);
    if (this.options.misbehave === 'close') {
      request.socket.destroy();
      return;
    }
    if (this.options.misbehave === '503') {
      sendJson(response, 503, { error: { message: 'overloaded' } });
      return;
    }
    if (this.options.misbehave === 'hang') {
      this.held.add(response);
      return;
    }
    if (this.options.misbehave === 'endless') {
      this.held.add(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      response.write('[');
      pump();
      return;
    }
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.options.beforeAnswer?.(this);
      if (this.options.api === 'openai' && body.model !== MODEL_NAME) {
        sendJson(response, 404, { error: { message: `The model ${String(body.model)} does not exist.` } });
        return;
      }
      const answer = this.options.api === 'openai' ? openAiAnswer(body) : sglangAnswer(body);
      const mutated = this.options.mutate ? this.options.mutate(answer) : answer;
      if (typeof mutated === 'string') response.writeHead(200).end(mutated);
      else sendJson(response, 200, mutated);
      this.answered.push(body);
    } finally {
      this.inFlight--;
    }
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const tokenKey = (id: number) => `token_id:${id}`;

function openAiAnswer(body: Json): Json {
  const prompt = body.prompt as number[];
  const topLogprobs = body.logprobs as number;
  const output = fakeGenerate(prompt, {
    maxNewTokens: body.max_tokens as number,
    temperature: body.temperature as number,
    seed: body.seed as number | undefined,
    stopTokenIds: body.stop_token_ids as number[],
    stopStrings: body.stop as string[],
    topLogprobs,
  });
  const { finish } = output;
  return {
    id: 'cmpl-fake',
    object: 'text_completion',
    created: 0,
    model: MODEL_NAME,
    choices: [
      {
        index: 0,
        text: output.ids.map(tokenText).join(''),
        token_ids: output.ids,
        prompt_token_ids: null,
        logprobs: {
          text_offset: output.ids.map((_, i) => i),
          token_logprobs: output.logProbs,
          tokens: output.ids.map(tokenKey),
          // vLLM lists the top-k and the sampled token.
          top_logprobs: output.top.map((top, i) =>
            Object.fromEntries([
              ...top.map(([id, logProb]) => [tokenKey(id), logProb]),
              [tokenKey(output.ids[i]!), output.logProbs[i]!],
            ]),
          ),
        },
        finish_reason: finish.kind === 'length' ? 'length' : 'stop',
        stop_reason:
          finish.kind === 'stop_string'
            ? finish.stop
            : finish.kind === 'stop_token' && finish.id !== EOS
              ? finish.id
              : null,
      },
    ],
    usage: { prompt_tokens: prompt.length, completion_tokens: output.ids.length, total_tokens: 0 },
  };
}

function sglangAnswer(body: Json): Json {
  const sampling = body.sampling_params as Json;
  const output = fakeGenerate(body.input_ids as number[], {
    maxNewTokens: sampling.max_new_tokens as number,
    temperature: sampling.temperature as number,
    seed: sampling.sampling_seed as number | undefined,
    stopTokenIds: sampling.stop_token_ids as number[],
    stopStrings: sampling.stop as string[],
    topLogprobs: body.top_logprobs_num as number,
  });
  const { finish } = output;
  return {
    text: output.ids.map(tokenText).join(''),
    output_ids: output.ids,
    meta_info: {
      id: 'fake',
      finish_reason:
        finish.kind === 'length'
          ? { type: 'length', length: output.ids.length }
          : { type: 'stop', matched: finish.kind === 'stop_string' ? finish.stop : finish.id },
      prompt_tokens: (body.input_ids as number[]).length,
      completion_tokens: output.ids.length,
      output_token_logprobs: output.ids.map((id, i) => [output.logProbs[i], id, null]),
      output_top_logprobs: output.top.map((top) => top.map(([id, logProb]) => [logProb, id, null])),
    },
  };
}

/**
 * Starts fake engines and RemotePolicies for a test file's tests and closes them all after each test, so a
 * failing test leaves no server or policy behind for the next. Call once, at the top of a test file.
 */
export function fakeEngineLifecycle() {
  const engines: FakeEngine[] = [];
  const policies: RemotePolicy[] = [];
  afterEach(async () => {
    await Promise.all(policies.splice(0).map((policy) => policy.close()));
    await Promise.all(engines.splice(0).map((engine) => engine.close()));
  });

  async function startEngines(count: number, options: FakeEngineOptions): Promise<FakeEngine[]> {
    const started = await Promise.all(Array.from({ length: count }, () => FakeEngine.start(options)));
    engines.push(...started);
    return started;
  }

  return {
    startEngines,
    async startEngine(options: FakeEngineOptions): Promise<FakeEngine> {
      const [engine] = await startEngines(1, options);
      return engine!;
    },
    /** A RemotePolicy over fake engines or plain URLs (such as one nothing listens on); 'sglang' ignores `model`. */
    remotePolicy(
      api: 'openai' | 'sglang',
      servers: readonly (FakeEngine | string)[],
      options: Partial<RemotePolicyOptions> = {},
    ): RemotePolicy {
      const policy = new RemotePolicy({
        endpoints: servers.map((server) => (typeof server === 'string' ? server : server.url)),
        api,
        model: MODEL_NAME,
        vocabSize: VOCAB,
        maxSequenceLength: 256,
        ...options,
      });
      policies.push(policy);
      return policy;
    },
  };
}
