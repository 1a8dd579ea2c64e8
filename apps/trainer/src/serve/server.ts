import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RolloutPolicy } from '@taorl/rollout';
import {
  CONNECTIONS_CAP,
  defaultMaxConnections,
  isLoopback,
  Refused,
  RequestGuard,
} from '@taorl/sandbox/node';
import { afterPollingIo, GenerationBatcher, type TextDecode } from './batcher.js';
import { completions } from './completions.js';
import type { ServeContext } from './context.js';
import { errorBody, ServeRequestError } from './errors.js';
import { generateRoute } from './generate.js';
import { WeightReloads } from './weights.js';

export interface ServeOptions<P extends RolloutPolicy = RolloutPolicy> {
  /** The model to serve; any `RolloutPolicy` (the local `TransformerPolicy`, a test double, ...). */
  policy: P;
  /**
   * Turns token ids into text (the tokenizer's decode): the returned text and stop strings use it. Requests choose
   * skip_special_tokens (default true, as on vLLM and SGLang).
   */
  decode: TextDecode;
  /**
   * The tokenizer's vocabulary size when the model's is larger (padding rows, as Qwen3 has): ids from it on are
   * never sampled, so every generated id decodes. Default: the policy's vocabSize.
   */
  tokenizerVocabSize?: number;
  /** The name /v1/models lists and /v1/completions accepts in `model`. */
  modelName: string;
  /** Where the weights came from, for /get_model_info (updated by each successful reload). */
  modelPath?: string;
  /** The model's end-of-sequence id, a stop id of every request that does not set ignore_eos. */
  eosTokenId?: number;
  /**
   * Builds a policy from a Hugging Face folder for POST /update_weights_from_disk; it must reject (with a message
   * for the client) a folder that does not fit the served model. Absent: the route answers that reloading is off.
   */
  loadWeights?(path: string): Promise<P>;
  /** The only folder `loadWeights` is given folders from (links resolved); required with `loadWeights`. */
  reloadRoot?: string;
  /**
   * When set, every route but /health needs `Authorization: Bearer <apiKey>`. Required when `host` is not a
   * loopback address: anyone who can reach the port could otherwise generate and reload weights.
   */
  apiKey?: string;
  /** Frees a policy a reload replaced (or one refused), once no batch uses it. */
  releasePolicy?(policy: P): void;
  /** Most requests per model call, 1 to 4096 (MAX_BATCH). Default 64. */
  maxBatch?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /**
   * How long a request's headers and body may take to arrive: past it the connection is closed (a 408 once the
   * headers are in). Default 30 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Connections held open at once, 1 to 16 384, so that connections never take the descriptors that weight reloads
   * and answers need: past it, the connection that has waited longest without sending a request is closed (or the
   * new one, when every connection has sent one). Default: what the file descriptor limit leaves, at most 16 384
   * (the rule of `taorl-sandbox serve`).
   */
  maxConnections?: number;
}

export interface InferenceServer<P extends RolloutPolicy = RolloutPolicy> {
  /** http://host:port, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  readonly batcher: GenerationBatcher<P>;
  /**
   * Graceful shutdown: first reads what clients sent before it (a long model call may have kept the server from
   * reading it), then stops accepting connections, answers every request received, reloads included, and closes
   * every connection. Idempotent.
   */
  close(): Promise<void>;
}

/** The most requests one model call takes: its activations grow with it, and one call holds the event loop. */
export const MAX_BATCH = 4096;
/** Largest request body read (a prompt of a million token ids fits). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** 16 MiB at 1 MB/s arrives in 17 s; a client slower than that holds a connection for nothing. */
const BODY_TIMEOUT_MS = 30_000;

type Handler = (body: unknown) => Promise<{ status: number; body: unknown }>;

/**
 * Starts the HTTP server of `taorl serve`: the subset of vLLM's OpenAI-compatible API and SGLang's native API that
 * RL rollouts use (token ids in, token ids and log-probs out, weights reloaded from disk between batches).
 */
export async function startServer<P extends RolloutPolicy>(
  options: ServeOptions<P>,
): Promise<InferenceServer<P>> {
  const { policy } = options;
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && options.apiKey === undefined) {
    throw new TypeError(`startServer: host ${host} is reachable from other machines: an apiKey is required`);
  }
  if (options.loadWeights !== undefined && options.reloadRoot === undefined) {
    throw new TypeError('startServer: loadWeights needs reloadRoot, the only folder reloads may read from');
  }
  const maxBatch = options.maxBatch ?? 64;
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_BATCH) {
    throw new TypeError(`startServer: maxBatch must be an integer from 1 to ${MAX_BATCH}, got ${maxBatch}`);
  }
  const guard = new RequestGuard(isLoopback(host), options.apiKey, new Set(['/health']), 'API key');
  const batcher = new GenerationBatcher(policy, {
    maxBatch,
    decode: options.decode,
    ...(options.tokenizerVocabSize === undefined ? {} : { tokenizerVocabSize: options.tokenizerVocabSize }),
    ...(options.releasePolicy ? { release: options.releasePolicy } : {}),
  });
  const context: ServeContext = {
    batcher,
    decode: options.decode,
    modelName: options.modelName,
    limits: {
      vocabSize: policy.vocabSize,
      maxModelLen: policy.maxSequenceLength,
      ...(options.eosTokenId === undefined ? {} : { eosTokenId: options.eosTokenId }),
    },
  };
  const reloads = new WeightReloads(batcher, context.limits, {
    ...(options.loadWeights ? { load: options.loadWeights } : {}),
    ...(options.releasePolicy ? { release: options.releasePolicy } : {}),
    ...(options.reloadRoot === undefined ? {} : { root: options.reloadRoot }),
    initialPath: options.modelPath ?? options.modelName,
  });

  const routes = new Map<string, { method: 'GET' | 'POST'; handle: Handler }>([
    ['/health', { method: 'GET', handle: async () => ({ status: 200, body: undefined }) }],
    [
      '/v1/models',
      {
        method: 'GET',
        handle: async () => ({
          status: 200,
          body: {
            object: 'list',
            data: [
              {
                id: options.modelName,
                object: 'model',
                owned_by: 'taorl',
                max_model_len: policy.maxSequenceLength,
              },
            ],
          },
        }),
      },
    ],
    [
      '/get_model_info',
      {
        method: 'GET',
        handle: async () => ({
          status: 200,
          body: {
            model_path: reloads.modelPath,
            tokenizer_path: options.modelPath ?? null,
            is_generation: true,
            preferred_sampling_params: null,
            weight_version: batcher.weightVersion,
          },
        }),
      },
    ],
    [
      '/v1/completions',
      { method: 'POST', handle: async (b) => ({ status: 200, body: await completions(b, context) }) },
    ],
    [
      '/generate',
      { method: 'POST', handle: async (b) => ({ status: 200, body: await generateRoute(b, context) }) },
    ],
    ['/update_weights_from_disk', { method: 'POST', handle: (body) => reloads.handle(body) }],
  ]);

  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? defaultMaxConnections(0, 'startServer');
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > CONNECTIONS_CAP) {
    throw new TypeError(
      `startServer: maxConnections must be an integer from 1 to ${CONNECTIONS_CAP}, got ${maxConnections}`,
    );
  }
  // Requests received and not yet answered, and the connections and requests that arrived so far (see close).
  const inFlight = new Set<ServerResponse>();
  let drained: (() => void) | null = null;
  let arrivals = 0;
  let closing: Promise<void> | null = null;
  const server = createServer({ headersTimeout: bodyTimeoutMs }, (request, response) => {
    arrivals++;
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      if (inFlight.size === 0) drained?.();
    });
    // While closing, every answer tells the client to open no more requests on this connection.
    if (closing !== null) response.setHeader('connection', 'close');
    void answer(routes, guard, request, response, bodyTimeoutMs);
  });
  // Past the cap, the connection that has waited longest without sending a request makes room (else the new one
  // is closed): idle connections cannot keep /health and clients with requests out.
  const silent = new Set<Socket>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    arrivals++;
    open++;
    silent.add(socket);
    socket.once('close', () => {
      open--;
      silent.delete(socket);
    });
    if (open <= maxConnections) return;
    const [oldest] = silent;
    (oldest ?? socket).destroy();
  });
  server.on('request', (request: IncomingMessage) => silent.delete(request.socket as Socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8000, host, () => {
      server.off('error', reject);
      // From now on an error is one connection's (accept failing with EMFILE): never fatal.
      server.on('error', () => undefined);
      resolve();
    });
  });

  const shutdown = async (): Promise<void> => {
    // Connections and requests that reached the machine while a model call held the event loop are read first:
    // closing at once would reset those not accepted yet and close those whose request was not parsed yet.
    for (let seen = -1; seen !== arrivals; ) {
      seen = arrivals;
      await afterPollingIo();
      await afterPollingIo();
    }
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (inFlight.size > 0) await new Promise<void>((resolve) => (drained = resolve));
    await batcher.idle();
    await reloads.settled();
    server.closeAllConnections();
    await closed;
  };
  const address = server.address() as AddressInfo;
  const bound = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${bound}:${address.port}`,
    port: address.port,
    batcher,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

async function answer(
  routes: Map<string, { method: string; handle: Handler }>,
  guard: RequestGuard,
  request: IncomingMessage,
  response: ServerResponse,
  bodyTimeoutMs: number,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const route = routes.get(path);
  try {
    guard.check(request, path);
    if (!route) throw new ServeRequestError(`no route ${request.method} ${path}`, null, 404);
    if (request.method !== route.method) {
      response.setHeader('allow', route.method);
      throw new ServeRequestError(`${path} takes ${route.method}, not ${request.method}`, null, 405);
    }
    const body = route.method === 'POST' ? await readJson(request, bodyTimeoutMs) : undefined;
    const result = await route.handle(body);
    send(response, result.status, result.body);
  } catch (error) {
    // The rest of a refused or late body is not read: the connection closes after the answer.
    if (error instanceof BodyError) response.setHeader('connection', 'close');
    if (error instanceof Refused)
      send(response, error.statusCode, errorBody(error.statusCode, error.message));
    else if (error instanceof ServeRequestError)
      send(response, error.status, errorBody(error.status, error.message, error.param));
    else send(response, 500, errorBody(500, error instanceof Error ? error.message : String(error)));
  }
}

/** A body refused before it was read whole (too large, too slow). */
class BodyError extends ServeRequestError {}

async function readJson(request: IncomingMessage, timeoutMs: number): Promise<unknown> {
  const text = (await readBody(request, timeoutMs)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServeRequestError(`the request body is not valid JSON (${(error as Error).message})`, null);
  }
}

/**
 * The request's body, or a 413 as soon as it is known to be over `MAX_BODY_BYTES` (from its Content-Length before
 * a byte is read, else while it streams), or a 408 when it has not arrived whole within `timeoutMs`.
 */
function readBody(request: IncomingMessage, timeoutMs: number): Promise<Buffer> {
  const tooLarge = (size: string) =>
    new BodyError(`request body of ${size} is over the limit of ${MAX_BODY_BYTES} bytes`, null, 413);
  const declared = Number(request.headers['content-length']);
  if (declared > MAX_BODY_BYTES) return Promise.reject(tooLarge(`${declared} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | null) => {
      clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('close', onClose);
      if (error === null) resolve(Buffer.concat(chunks));
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) settle(tooLarge(`at least ${size} bytes`));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onClose = () => settle(new Error('the client closed the connection before the body arrived'));
    const timer = setTimeout(
      () => settle(new BodyError(`the request body did not arrive within ${timeoutMs / 1000} s`, null, 408)),
      timeoutMs,
    );
    // A connection closed under a refused body makes the stream fail; nothing is waiting for it then.
    request.on('error', () => undefined);
    request.on('data', onData).on('end', onEnd).on('close', onClose);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
