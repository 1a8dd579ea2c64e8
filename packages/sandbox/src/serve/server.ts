import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { integerIn, MAX_CONCURRENCY, MAX_QUEUE, MAX_TIMER_MS } from '../ranges';
import type { Sandbox } from '../types';
import { rejectUnknownFields } from '../unknown-fields';
import { Admission, NotAdmitted, QueueShare } from './admission';
import { CONNECTIONS_CAP, defaultMaxConnections } from './descriptors';
import { isLoopback, Refused, RequestGuard } from './guard';
import { Heartbeat } from './heartbeat';
import { ServerMetrics } from './metrics';
import { RunCodeRequestError, toExecRequest, toRunCodeResponse } from './run-code-api';

export interface SandboxServerOptions {
  /** Runs the code. The server owns it from now on: `close()` closes it. */
  sandbox: Sandbox;
  /** Default 127.0.0.1. Any other than a loopback address needs `token`. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** When set, every route but /health and /v1/ping needs `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * Serve a non-loopback `host` without a token: anyone who reaches the port can run code in the sandbox. Only for
   * a private network whose clients cannot send a token (verl's client sends none). Default false.
   */
  insecureNoToken?: boolean;
  /** Runs handed to the sandbox at once. Default: the sandbox's `workers` when it has them, else 8. */
  concurrency?: number;
  /**
   * Memory that requests not yet running may hold (bodies arriving or waiting for a worker), in bytes; each is
   * charged QUEUE_REQUEST_BYTES plus QUEUE_BODY_FACTOR x its body. One that would go past it is answered 504 with
   * Retry-After (the status SandboxFusion clients retry). Default 1 GiB.
   */
  maxQueueBytes?: number;
  /** At most this many requests wait for a worker; one more is answered 504 with Retry-After. Default: no count. */
  maxQueue?: number;
  /**
   * The longest a request waits for a worker before it is refused: 504 with Retry-After, or, once its head went
   * out (heartbeatMs), status SandboxError in the body. Default: no limit (the queue is bounded by its memory, and
   * the heartbeat keeps the client waiting).
   */
  queueTimeoutMs?: number;
  /**
   * A request not answered within this many ms (waiting for a worker, or running) gets its head, 200 with a JSON
   * body, and then a space every heartbeatMs until its answer: JSON allows whitespace before the value, and a
   * client's read timeout (verl's: compile_timeout + run_timeout + 10 s between two reads, at least 10 s) never
   * runs out however long the queue. A failure after the head is answered in the body, as SandboxFusion answers
   * its own (status SandboxError, the reason in message). 0: never (answers come whole). Default 5 000.
   */
  heartbeatMs?: number;
  /**
   * Connections held open at once; more are closed as they arrive. Default: what the file descriptor limit leaves
   * beside the workers' descriptors, at most 16 384.
   */
  maxConnections?: number;
  /** The longest run_timeout a run gets: one asking for more, or for none (0 or less), gets this. Default 60 000. */
  maxRunTimeoutMs?: number;
  /** The largest memory_limit_MB a run gets: one asking for more, or for none (0 or less), gets this. Default 4096. */
  maxMemoryMb?: number;
  /** Request bodies larger than this are answered 413. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Time a client has to send its headers and body. Default 30 000. */
  receiveTimeoutMs?: number;
  /** Seconds suggested in Retry-After of 503 and 504 answers. Default 1. */
  retryAfterS?: number;
}

export interface SandboxServer {
  /** http://host:port with the port actually bound. */
  readonly url: string;
  /** Requests waiting for a worker now. */
  readonly queued: number;
  /** Runs in the sandbox now. */
  readonly running: number;
  /**
   * Graceful shutdown: stops accepting connections, answers waiting requests 503 (Retry-After), lets admitted runs
   * finish for up to `graceMs` (default 30 000), then closes the sandbox, which ends runs still going as
   * sandbox_error (answered SandboxError), and closes the connections. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

const OPTIONS: readonly (keyof SandboxServerOptions)[] = [
  'sandbox',
  'host',
  'port',
  'token',
  'insecureNoToken',
  'concurrency',
  'maxQueueBytes',
  'maxQueue',
  'queueTimeoutMs',
  'heartbeatMs',
  'maxConnections',
  'maxRunTimeoutMs',
  'maxMemoryMb',
  'maxBodyBytes',
  'receiveTimeoutMs',
  'retryAfterS',
];

const count = (
  value: number | undefined,
  fallback: number,
  field: string,
  min: number,
  max?: number,
): number =>
  integerIn(value, fallback, field, 'startSandboxServer', max === undefined ? { min } : { min, max });

/**
 * What a request not yet running is charged of the queue's memory: its connection, request and response objects,
 * plus its body this many times over. Measured (docs/benchmarks/sandbox.md): a waiting request adds 20 KiB of
 * resident memory plus 2.0 to 2.3 times its body (the decoded files it keeps, buffers V8 frees lazily), and the
 * body is held three times over for a moment while parsed (bytes, text, JSON).
 */
export const QUEUE_REQUEST_BYTES = 24 * 1024;
export const QUEUE_BODY_FACTOR = 3;

type Answer = { statusCode: number; body: string; contentType: string; headers?: Record<string, string> };

const json = (statusCode: number, value: unknown, headers?: Record<string, string>): Answer => ({
  statusCode,
  body: JSON.stringify(value),
  contentType: 'application/json',
  ...(headers ? { headers } : {}),
});

/** An answer other than 200 as SandboxFusion words its own failures, for a response whose 200 head went out. */
function failureInBody(answer: Answer): string {
  const { detail } = JSON.parse(answer.body) as { detail: string };
  return JSON.stringify({
    status: 'SandboxError',
    message: `HTTP ${answer.statusCode}: ${detail}`,
    compile_result: null,
    run_result: null,
    executor_pod_name: null,
    files: {},
  });
}

class BodyTooLarge extends Error {}

/**
 * Reads the body up to `limit` bytes, passing each chunk's size to `received` first (which may throw to refuse
 * it); past the limit, or on a refusal, rejects at once without buffering more.
 */
function readBody(
  request: IncomingMessage,
  limit: number,
  received: (bytes: number) => void,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      try {
        if (size > limit) throw new BodyTooLarge();
        received(chunk.length);
      } catch (error) {
        request.removeAllListeners('data');
        request.pause();
        reject(error);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      // The listeners live as long as the request: they must not keep the chunks of a request that waits.
      request.removeAllListeners('data');
      resolve(Buffer.concat(chunks.splice(0)));
    });
    request.on('error', reject);
  });
}

/**
 * Serves a sandbox behind SandboxFusion's HTTP API: POST /run_code (Python only), GET /v1/ping, plus GET /health
 * and GET /metrics (Prometheus text). Safe by default: loopback only unless a token is given, bounded bodies,
 * bounded queue with back-pressure, per-request limits checked against the server's bounds.
 */
export async function startSandboxServer(options: SandboxServerOptions): Promise<SandboxServer> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('startSandboxServer: options must be an object with a sandbox');
  }
  rejectUnknownFields(options, OPTIONS, 'startSandboxServer');
  const { sandbox } = options;
  if (sandbox === null || typeof sandbox !== 'object' || typeof sandbox.run !== 'function') {
    throw new TypeError('startSandboxServer: sandbox must be a Sandbox (from createSandbox)');
  }
  const host = options.host ?? '127.0.0.1';
  if (typeof options.token === 'string' && options.token.length < 16) {
    throw new TypeError('startSandboxServer: token must be at least 16 characters');
  }
  if (!isLoopback(host) && options.token === undefined && options.insecureNoToken !== true) {
    throw new TypeError(
      `startSandboxServer: host ${host} is reachable from other machines: a token is required (anyone who can ` +
        'reach the port could run code), or insecureNoToken: true for a private network',
    );
  }
  const workers = (sandbox as { workers?: unknown }).workers;
  const concurrency = count(
    options.concurrency,
    typeof workers === 'number' ? workers : 8,
    'concurrency',
    1,
    MAX_CONCURRENCY,
  );
  const maxBodyBytes = count(options.maxBodyBytes, 16 * 1024 * 1024, 'maxBodyBytes', 1);
  const largestRequest = QUEUE_REQUEST_BYTES + QUEUE_BODY_FACTOR * maxBodyBytes;
  const maxQueueBytes = count(options.maxQueueBytes, 1024 * 1024 * 1024, 'maxQueueBytes', 1);
  if (maxQueueBytes < largestRequest) {
    throw new TypeError(
      `startSandboxServer: maxQueueBytes ${maxQueueBytes} cannot hold one request of maxBodyBytes ` +
        `${maxBodyBytes} (it is charged ${largestRequest}); raise maxQueueBytes or lower maxBodyBytes`,
    );
  }
  const admission = new Admission(
    concurrency,
    options.maxQueue === undefined
      ? Number.POSITIVE_INFINITY
      : count(options.maxQueue, 0, 'maxQueue', 0, MAX_QUEUE),
    maxQueueBytes,
  );
  const queueTimeoutMs =
    options.queueTimeoutMs === undefined
      ? Number.POSITIVE_INFINITY
      : count(options.queueTimeoutMs, 0, 'queueTimeoutMs', 1, MAX_TIMER_MS);
  const heartbeatMs = count(options.heartbeatMs, 5_000, 'heartbeatMs', 0, MAX_TIMER_MS);
  const maxConnections =
    options.maxConnections === undefined
      ? defaultMaxConnections(concurrency)
      : count(options.maxConnections, 0, 'maxConnections', 1, CONNECTIONS_CAP);
  const bounds = {
    maxRunTimeoutMs: count(options.maxRunTimeoutMs, 60_000, 'maxRunTimeoutMs', 1, MAX_TIMER_MS),
    maxMemoryMb: count(options.maxMemoryMb, 4096, 'maxMemoryMb', 1),
  };
  const receiveTimeoutMs = count(options.receiveTimeoutMs, 30_000, 'receiveTimeoutMs', 1, MAX_TIMER_MS);
  const retryAfter = { 'retry-after': String(count(options.retryAfterS, 1, 'retryAfterS', 0)) };
  const guard = new RequestGuard(isLoopback(host), options.token, new Set(['/health', '/v1/ping']));
  const metrics = new ServerMetrics();
  let closing: Promise<void> | null = null;

  // Past the queue's bounds: 504, the one status verl's client retries (it waits 1 s, then 2 s, three tries).
  const notAdmitted = (error: NotAdmitted): Answer =>
    json(error.reason === 'shutting_down' ? 503 : 504, { detail: error.message }, retryAfter);

  /** The request's body as an ExecRequest, or the answer refusing it. Nothing of the raw body outlives it. */
  const receive = async (
    request: IncomingMessage,
    share: QueueShare,
  ): Promise<ReturnType<typeof toExecRequest> | Answer> => {
    let body: unknown;
    try {
      admission.charge(share, QUEUE_REQUEST_BYTES);
      const raw = await readBody(request, maxBodyBytes, (bytes) =>
        admission.charge(share, QUEUE_BODY_FACTOR * bytes),
      );
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      if (error instanceof NotAdmitted) return notAdmitted(error);
      if (error instanceof BodyTooLarge) {
        return json(413, { detail: `the request body is over this server's limit of ${maxBodyBytes} bytes` });
      }
      return json(422, { detail: `the body is not JSON: ${(error as Error).message}` });
    }
    try {
      return toExecRequest(body, bounds);
    } catch (error) {
      if (error instanceof RunCodeRequestError) return json(422, { detail: error.message });
      throw error;
    }
  };

  const runCode = async (
    request: IncomingMessage,
    arrived: number,
    gone: AbortSignal,
    share: QueueShare,
    heartbeat: Heartbeat,
  ): Promise<Answer> => {
    const served = await receive(request, share);
    if ('statusCode' in served) return served;
    // Received and valid: from here on only the wait and the run take time.
    heartbeat.start();
    try {
      await admission.enter(share, queueTimeoutMs, gone);
    } catch (error) {
      if (!(error instanceof NotAdmitted)) throw error;
      return notAdmitted(error);
    }
    try {
      const result = await sandbox.run(served.request);
      metrics.run(result.status, performance.now() - arrived);
      return json(200, toRunCodeResponse(result, served.notes));
    } catch (error) {
      // The sandbox checks what the API's schema cannot (two files at one path, say).
      if (error instanceof TypeError) return json(422, { detail: error.message });
      throw error;
    } finally {
      admission.leave();
    }
  };

  const route = async (
    request: IncomingMessage,
    gone: AbortSignal,
    share: QueueShare,
    heartbeat: Heartbeat,
  ): Promise<Answer> => {
    const arrived = performance.now();
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    try {
      guard.check(request, path);
    } catch (error) {
      if (error instanceof Refused) return json(error.statusCode, { detail: error.message });
      throw error;
    }
    const method = request.method ?? 'GET';
    const allow = (expected: string): Answer | null =>
      method === expected ? null : json(405, { detail: `${path} takes ${expected}` }, { allow: expected });
    switch (path) {
      case '/run_code':
        if (closing) return json(503, { detail: 'the server is shutting down' }, retryAfter);
        return allow('POST') ?? (await runCode(request, arrived, gone, share, heartbeat));
      case '/health':
        return (
          allow('GET') ??
          json(closing ? 503 : 200, {
            status: closing ? 'shutting_down' : 'ok',
            backend: sandbox.backend,
            concurrency,
            running: admission.running,
            queued: admission.queued,
          })
        );
      case '/v1/ping':
        return allow('GET') ?? { statusCode: 200, body: 'pong', contentType: 'text/plain' };
      case '/metrics':
        return (
          allow('GET') ?? {
            statusCode: 200,
            contentType: 'text/plain; version=0.0.4',
            body: metrics.text({
              queued: admission.queued,
              running: admission.running,
              concurrency,
              queuedBytes: admission.queuedBytes,
              maxQueueBytes: admission.maxQueueBytes,
              connections,
              maxConnections,
              residentBytes: process.memoryUsage.rss(),
            }),
          }
        );
      default:
        return json(404, {
          detail: `no route ${path}; routes: POST /run_code, GET /health, /metrics, /v1/ping`,
        });
    }
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const gone = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    const share = new QueueShare();
    const heartbeat = new Heartbeat(response, heartbeatMs);
    route(request, gone.signal, share, heartbeat)
      .catch((error: Error): Answer => json(500, { detail: `internal error: ${error.message}` }))
      .then((answer) => {
        heartbeat.stop();
        admission.release(share);
        // The status on the wire: 200 once the heartbeat's head went out, whatever the body says.
        metrics.response(heartbeat.headSent ? 200 : answer.statusCode);
        if (response.destroyed) return;
        if (heartbeat.headSent) {
          response.end(answer.statusCode === 200 ? answer.body : failureInBody(answer));
          return;
        }
        // A body left unread (refused before reading, or too large) is not drained: the connection is closed.
        const unread = !request.complete;
        response.writeHead(answer.statusCode, {
          'content-type': answer.contentType,
          'content-length': Buffer.byteLength(answer.body),
          ...(unread || closing ? { connection: 'close' } : {}),
          ...answer.headers,
        });
        response.end(answer.body);
      });
  };

  const server: Server = createServer(
    { requestTimeout: receiveTimeoutMs, headersTimeout: receiveTimeoutMs },
    handle,
  );
  // Past the cap a new connection is closed at once, so that the descriptors the workers need stay free.
  server.maxConnections = maxConnections;
  let connections = 0;
  server.on('connection', (socket) => {
    connections++;
    socket.once('close', () => connections--);
  });
  server.on('drop', () => metrics.connectionDropped());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const port = count(options.port, 8080, 'port', 0);
    server.listen({ port, host, backlog: Math.min(maxConnections, 4096) }, () => {
      server.off('error', reject);
      // From now on an error is one connection's (accept failing with EMFILE, say): counted, never fatal.
      server.on('error', () => metrics.acceptFailed());
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const shutdown = async (graceMs: number): Promise<void> => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    admission.close();
    const until = Date.now() + graceMs;
    while (admission.running > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Runs still going end as sandbox_error when their workers stop, and are answered as such.
    await sandbox.close();
    while (admission.running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 1000).unref();
    await stopped;
  };

  return {
    url: `http://${shown}:${address.port}`,
    get queued() {
      return admission.queued;
    },
    get running() {
      return admission.running;
    },
    close(graceMs = 30_000) {
      closing ??= shutdown(graceMs);
      return closing;
    },
  };
}
