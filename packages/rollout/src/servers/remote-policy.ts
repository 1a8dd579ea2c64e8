import { setMaxListeners } from 'node:events';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import {
  openAiCompletions,
  RemotePolicyError,
  remotePolicyDefaults,
  servedModelName,
  sglangGenerate,
  toGeneratedSequence,
  type WireApi,
  WireFields,
  type WireRequest,
} from '@taorl/rollout';
import { defaultAnswerLimits, JsonHttpClient } from './json-http.js';
import { type RemoteServerStats, ServerPool } from './server-pool.js';

/** Which server API `RemotePolicy` speaks. */
export type RemoteApi = 'openai' | 'sglang';

export interface RemotePolicyOptions {
  /** Base URLs of the servers, e.g. http://10.0.0.5:8000 (a trailing /v1 is accepted for 'openai'). */
  endpoints: readonly string[];
  /** 'openai': POST /v1/completions as vLLM >= 0.10.2 serves it; 'sglang': SGLang's native POST /generate. */
  api: RemoteApi;
  /** The `model` field of 'openai' requests; when absent, the first model of GET /v1/models, asked once. */
  model?: string;
  /** The served model's vocabulary size; ids outside [0, vocabSize) in an answer are an error. */
  vocabSize: number;
  /** Longest prefix + generation the served model accepts. */
  maxSequenceLength: number;
  /** Top alternatives per token to ask for, for the entropy estimate (default 5; 0 = none: surprisal). */
  topLogprobs?: number;
  /** Requests in flight per server at most (default 16). */
  maxConcurrentPerServer?: number;
  /** Per request (default 120000). */
  timeoutMs?: number;
  /** Attempts per sample across servers on transient failures (default 4). */
  maxAttempts?: number;
  /** Backoff before probing again when every server is down; doubles per attempt, capped at 10 s (default 250). */
  retryDelayMs?: number;
  /** How long a failed server gets no requests; doubles per consecutive failure, up to 16x (default 2000). */
  cooldownMs?: number;
  /** Largest answer read from a server, in bytes (default 64 MiB); a larger one fails the sample, naming both. */
  maxResponseBytes?: number;
  /** Sent as `Authorization: Bearer <apiKey>` (taorl serve --api-key, vLLM and SGLang --api-key). */
  apiKey?: string;
}

const APIS: Record<RemoteApi, WireApi> = { openai: openAiCompletions, sglang: sglangGenerate };

/**
 * The rollout side of a policy served by vLLM or SGLang over HTTP. One request per prompt, so retries and load
 * balancing are per sample; `generate` returns exactly one sequence per prompt, in order, or throws.
 *
 * Stop strings are matched by the server on its own detokenizer (`SamplingParams.decode` is not used), so the
 * server must run the trainer's tokenizer. Log-probs are the server's: the policy's convention is
 * softmax(logits / temperature) before top-k / top-p. vLLM V1 returns pre-temperature log-probs unless started
 * with --logprobs-mode processed_logprobs, and its processed log-probs are taken after top-k / top-p; the two
 * agree with the convention at temperature 1 without top-k / top-p. SGLang returns temperature-scaled log-probs
 * unless SGLANG_RETURN_ORIGINAL_LOGPROB is set. Entropies are estimates (`entropyFromTopLogprobs`): servers do
 * not return the full distribution.
 */
export class RemotePolicy implements RolloutPolicy {
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  /** Each sample is its own request, balanced over the servers: overlapping calls run in parallel. */
  readonly concurrentGenerate = true;
  private readonly api: WireApi;
  private readonly endpoints: string[];
  private readonly topLogprobs: number;
  private readonly timeoutMs: number;
  private readonly pool: ServerPool;
  private readonly http: JsonHttpClient;
  private readonly never = new AbortController().signal;
  private modelName: Promise<string> | undefined;
  private closed = false;

  constructor(private readonly options: RemotePolicyOptions) {
    const api = APIS[options?.api];
    if (api === undefined) {
      throw new TypeError(
        `RemotePolicy: api must be 'openai' or 'sglang', got ${JSON.stringify(options?.api)}`,
      );
    }
    this.api = api;
    if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
      throw new TypeError('RemotePolicy: endpoints must list at least one server base URL');
    }
    this.endpoints = options.endpoints.map((endpoint) => baseUrl(endpoint, options.api));
    this.vocabSize = count(options.vocabSize, undefined, 'vocabSize', 1);
    this.maxSequenceLength = count(options.maxSequenceLength, undefined, 'maxSequenceLength', 1);
    this.topLogprobs = count(options.topLogprobs, remotePolicyDefaults.topLogprobs, 'topLogprobs', 0);
    this.timeoutMs = count(options.timeoutMs, remotePolicyDefaults.timeoutMs, 'timeoutMs', 1);
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === ''))
      throw new TypeError('RemotePolicy: apiKey must be a non-empty string when given');
    this.http = new JsonHttpClient(
      {
        ...defaultAnswerLimits,
        maxBytes: count(options.maxResponseBytes, defaultAnswerLimits.maxBytes, 'maxResponseBytes', 1),
      },
      options.apiKey,
    );
    this.pool = new ServerPool(this.endpoints, {
      maxConcurrentPerServer: count(
        options.maxConcurrentPerServer,
        remotePolicyDefaults.maxConcurrentPerServer,
        'maxConcurrentPerServer',
        1,
      ),
      maxAttempts: count(options.maxAttempts, remotePolicyDefaults.maxAttempts, 'maxAttempts', 1),
      retryDelayMs: count(options.retryDelayMs, remotePolicyDefaults.retryDelayMs, 'retryDelayMs', 0),
      cooldownMs: count(options.cooldownMs, remotePolicyDefaults.cooldownMs, 'cooldownMs', 0),
    });
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    if (this.closed) throw new RemotePolicyError(this.endpoints.join(', '), 'RemotePolicy is closed');
    const maxNewTokens = count(sampling.maxNewTokens, undefined, 'sampling.maxNewTokens', 1);
    if (sampling.seed !== undefined && !Number.isSafeInteger(sampling.seed)) {
      throw new TypeError(`RemotePolicy: sampling.seed must be an integer, got ${sampling.seed}`);
    }
    if (prompts.length === 0) return [];
    const model = this.options.api === 'openai' ? await this.servedModel() : undefined;
    const requests = prompts.map(
      (promptIds, index): WireRequest => ({
        promptIds,
        maxNewTokens,
        temperature: sampling.temperature ?? 1,
        topP: sampling.topP ?? 1,
        topK: sampling.topK ?? 0,
        stopTokenIds: sampling.stopTokenIds ?? [],
        stopStrings: sampling.stopStrings ?? [],
        seed: sampling.seed === undefined ? undefined : sampling.seed + index,
        topLogprobs: this.topLogprobs,
      }),
    );
    // When one sample fails for good, the others are abandoned rather than left running.
    const abandon = new AbortController();
    // Every sample of the call listens to it: more than Node's default of 10 listeners is expected, not a leak.
    setMaxListeners(0, abandon.signal);
    try {
      return await Promise.all(requests.map((request) => this.generateOne(request, model, abandon.signal)));
    } finally {
      abandon.abort();
    }
  }

  /** Per server: requests, retries, failures, requests in flight, cool-down, last failure. */
  stats(): RemoteServerStats[] {
    return this.pool.stats();
  }

  /** Fails requests in flight and later calls, and closes the connections. */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.close();
    this.http.close();
  }

  private generateOne(
    request: WireRequest,
    model: string | undefined,
    abandon: AbortSignal,
  ): Promise<GeneratedSequence> {
    return this.pool.run(async (base, cancel) => {
      const url = `${base}${this.api.path}`;
      const json = await this.http.request(url, this.api.body(request, model), this.timeoutMs, cancel);
      return toGeneratedSequence(
        this.api.parse(json, new WireFields(url), request, this.vocabSize),
        this.vocabSize,
      );
    }, abandon);
  }

  /** The 'openai' model name: the option, or GET /v1/models once (asked again after a failure). */
  private servedModel(): Promise<string> {
    if (this.options.model !== undefined) return Promise.resolve(this.options.model);
    if (this.modelName === undefined) {
      const asked = this.pool.run(async (base, cancel) => {
        const url = `${base}/v1/models`;
        return servedModelName(
          await this.http.request(url, undefined, this.timeoutMs, cancel),
          new WireFields(url),
        );
      }, this.never);
      this.modelName = asked;
      asked.catch(() => {
        if (this.modelName === asked) this.modelName = undefined;
      });
    }
    return this.modelName;
  }
}

function baseUrl(endpoint: unknown, api: RemoteApi): string {
  if (typeof endpoint !== 'string' || !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new TypeError(
      `RemotePolicy: endpoint must be an http(s) base URL, got ${JSON.stringify(endpoint)}`,
    );
  }
  const trimmed = endpoint.replace(/\/+$/, '');
  return api === 'openai' ? trimmed.replace(/\/v1$/, '') : trimmed;
}

function count(value: number | undefined, fallback: number | undefined, field: string, min: number): number {
  const resolved = value ?? fallback;
  if (resolved === undefined || !Number.isInteger(resolved) || resolved < min) {
    throw new TypeError(`RemotePolicy: ${field} must be an integer >= ${min}, got ${value}`);
  }
  return resolved;
}
