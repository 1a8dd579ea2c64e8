import { constants } from 'node:os';
import { mapWithConcurrency, Semaphore } from '../concurrency';
import {
  base64Content,
  type ExecLimits,
  type ResolvedRequest,
  resolveBatch,
  resolveLimits,
  resolveRequest,
} from '../limits';
import { endsWithMemoryError } from '../memory-error';
import { integerIn, MAX_CONCURRENCY, MAX_OUTPUT_BYTES, MAX_TIMER_MS } from '../ranges';
import { sandboxError } from '../sandbox-error';
import type { ExecRequest, ExecResult, ExecStatus, Sandbox } from '../types';
import { rejectUnknownFields } from '../unknown-fields';
import { boundedProgram, STREAM_FILES } from './bounded-program';

export interface SandboxFusionOptions {
  /**
   * Base URL of the server, e.g. http://sandbox:8080 (requests go to `${url}/run_code`), or several: each request
   * goes to the one with the fewest requests in flight, and a retry after a transport error to another one.
   */
  url: string | readonly string[];
  /**
   * Sent as `Authorization: Bearer <token>` (a `taorl-sandbox serve --token` server). Default: the environment
   * variable TAORL_SANDBOX_TOKEN when set, so that the secret need not be in a config file.
   */
  token?: string;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /**
   * Extra attempts after a transport error (connection refused or reset, HTTP 5xx, 408 or 429, no answer in time).
   * Default 3.
   */
  retries?: number;
  /** Wait before the first retry, doubled each time. Default 200. */
  retryDelayMs?: number;
  /** Default limits; the server enforces timeoutMs (run_timeout) and memoryMb (memory_limit_MB) only. */
  limits?: Partial<ExecLimits>;
  /** Extra time the server may take beyond run_timeout before a call counts as a transport error. Default 30 000. */
  transportGraceMs?: number;
  /**
   * The most bytes of each of stdout and stderr a run sends through the server's pipes. SandboxFusion stops reading
   * a run's pipes past about 128 KiB of output, and the run then hangs until its timeout; the default 65 536 keeps
   * both streams under that. The whole output, up to `maxOutputBytes` as on the local backend, comes back as files
   * (fetch_files); only a server that returns no files falls back to the pipes, and then a stream longer than this
   * is `output_limit`.
   */
  serverOutputBytes?: number;
}

/** The body of POST /run_code (bytedance/SandboxFusion). */
export interface RunCodeRequest {
  code: string;
  language: 'python';
  run_timeout: number;
  memory_limit_MB: number;
  stdin: string;
  /** File name -> base64 content, written next to the code. */
  files: Record<string, string>;
  /** Files to send back after the run, relative to the code's directory. */
  fetch_files: string[];
}

/** The answer of POST /run_code. */
export interface RunCodeResponse {
  status: 'Success' | 'Failed' | 'SandboxError';
  message?: string;
  run_result?: {
    status: 'Finished' | 'TimeLimitExceeded' | 'Error';
    return_code: number | null;
    stdout: string | null;
    stderr: string | null;
    execution_time: number | null;
  } | null;
  /** fetch_files that existed after the run: file name -> base64 content. */
  files?: Record<string, string>;
}

/** What one request's program keeps of each stream, and sends through the server's pipes. */
export interface StreamBounds {
  /** Bytes kept of each stream (`maxOutputBytes`); past it the run stops with `output_limit`. */
  keepBytes: number;
  /** Bytes of each stream sent through the pipes (what a server that returns no files gives back). */
  pipeBytes: number;
}

/**
 * The body for one request. The submitted program bounds its own output and memory (see `boundedProgram`): it
 * forwards at most `pipeBytes` + 1 bytes of each stream through the pipes and writes `keepBytes` + 1 to a file
 * fetched back, so the server never holds more and the client can tell a cut. A session's earlier cells are
 * replayed inside it, silenced.
 */
export function toRunCodeRequest(request: ResolvedRequest, bounds: StreamBounds): RunCodeRequest {
  // A null prototype: a file may be named __proto__.
  const files: Record<string, string> = Object.create(null);
  for (const file of request.files) files[file.path] = base64Content(file.content);
  return {
    code: boundedProgram(request.code, request.session, {
      pipeBytes: bounds.pipeBytes + 1,
      keepBytes: bounds.keepBytes + 1,
      memoryBytes: request.limits.memoryMb * 1024 * 1024,
    }),
    language: 'python',
    run_timeout: request.limits.timeoutMs / 1000,
    memory_limit_MB: request.limits.memoryMb,
    stdin: request.stdin,
    files,
    fetch_files: [...request.fetchFiles, STREAM_FILES.stdout, STREAM_FILES.stderr],
  };
}

/**
 * SandboxFusion's statuses onto ours: SandboxError, a missing run_result or run status Error -> sandbox_error;
 * a stream longer than it keeps -> output_limit (cut); TimeLimitExceeded -> timeout; Finished with return code 0
 * -> ok; non-zero with a MemoryError as the traceback's last line -> memory; a negative code (killed by a signal)
 * -> killed; other non-zero -> error. The precedence is the local backend's. The streams are the program's files
 * (bounded by `keepBytes`) when the answer holds them, else the pipes' text (bounded by `pipeBytes`). The files of
 * `fetchFiles` that the answer holds come back in `files`, in `fetchFiles`' order.
 */
export function fromRunCodeResponse(
  response: RunCodeResponse,
  bounds: StreamBounds,
  fetchFiles: readonly string[] = [],
): ExecResult {
  const run = response.run_result;
  if (response.status === 'SandboxError' || !run || run.status === 'Error') {
    return sandboxError(
      `SandboxFusion: ${response.status}${response.message ? `: ${response.message}` : ''}`,
    );
  }
  const returned = response.files ?? {};
  const fromFiles = [STREAM_FILES.stdout, STREAM_FILES.stderr].every(
    (path) => Object.hasOwn(returned, path) && typeof returned[path] === 'string',
  );
  const stream = (piped: string | null, file: string): Buffer =>
    fromFiles ? Buffer.from(returned[file] as string, 'base64') : Buffer.from(piped ?? '');
  const keep = fromFiles ? bounds.keepBytes : bounds.pipeBytes;
  const stdout = stream(run.stdout, STREAM_FILES.stdout);
  const stderr = stream(run.stderr, STREAM_FILES.stderr);
  const code = run.return_code;
  const stdoutTruncated = stdout.length > keep;
  const stderrTruncated = stderr.length > keep;
  const stderrText = stderr.subarray(0, keep).toString();
  let status: ExecStatus;
  if (stdoutTruncated || stderrTruncated) status = 'output_limit';
  else if (run.status === 'TimeLimitExceeded')
    status = endsWithMemoryError(stderrText) ? 'memory' : 'timeout';
  else if (code === 0) status = 'ok';
  else if (endsWithMemoryError(stderrText)) status = 'memory';
  else if (code !== null && code < 0) status = 'killed';
  else status = 'error';
  const result: ExecResult = {
    status,
    exitCode: code !== null && code >= 0 ? code : null,
    signal: code !== null && code < 0 ? signalName(-code) : null,
    stdout: stdout.subarray(0, keep).toString(),
    stderr: stderrText,
    stdoutTruncated,
    stderrTruncated,
    durationMs: (run.execution_time ?? 0) * 1000,
  };
  if (fetchFiles.length > 0) {
    result.files = fetchFiles
      .filter((path) => Object.hasOwn(returned, path) && typeof returned[path] === 'string')
      .map((path) => ({ path, content: new Uint8Array(Buffer.from(returned[path] as string, 'base64')) }));
  }
  return result;
}

function signalName(number: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry ? entry[0] : `signal ${number}`;
}

/** A failure another attempt may not meet (the server unreachable or overloaded for now). */
class TransportError extends Error {}

/** The server refused the request (HTTP 4xx): retrying the same request would meet the same answer. */
class RefusedError extends Error {}

class SandboxFusionClient implements Sandbox {
  readonly backend = 'sandboxfusion';
  private readonly semaphore: Semaphore;
  private readonly inFlight = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: ResolvedSandboxFusionOptions) {
    this.semaphore = new Semaphore(options.concurrency);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.closed) throw new Error('@taorl/sandbox: run() after close()');
    const resolved = resolveRequest(request, this.options.limits);
    return this.semaphore.use(() => this.post(resolved));
  }

  async runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]> {
    resolveBatch(requests, this.options.limits);
    return mapWithConcurrency(requests, this.options.concurrency, (request) => this.run(request));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * The endpoint with the fewest requests in flight; among equals, one that did not just fail this request, then
   * the first (so that one server serves a light load alone).
   */
  private pick(failed: ReadonlySet<string>): string {
    const { endpoints } = this.options;
    let best = endpoints[0] as string;
    const rank = (endpoint: string) => [failed.has(endpoint) ? 1 : 0, this.inFlight.get(endpoint) ?? 0];
    for (const endpoint of endpoints) {
      const [failedA, loadA] = rank(endpoint) as [number, number];
      const [failedB, loadB] = rank(best) as [number, number];
      if (failedA < failedB || (failedA === failedB && loadA < loadB)) best = endpoint;
    }
    return best;
  }

  private async post(request: ResolvedRequest): Promise<ExecResult> {
    const { retries, retryDelayMs, transportGraceMs, serverOutputBytes } = this.options;
    const bounds = {
      keepBytes: request.limits.maxOutputBytes,
      pipeBytes: Math.min(request.limits.maxOutputBytes, serverOutputBytes),
    };
    const body = JSON.stringify(toRunCodeRequest(request, bounds));
    const started = performance.now();
    const failed = new Set<string>();
    const errors: string[] = [];
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
      const endpoint = this.pick(failed);
      this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 0) + 1);
      try {
        const response = await this.attempt(endpoint, body, request.limits.timeoutMs + transportGraceMs);
        return fromRunCodeResponse(response, bounds, request.fetchFiles);
      } catch (error) {
        // A refusal is the service's, never the program's: an infrastructure failure like the others.
        if (error instanceof RefusedError) return sandboxError(error.message, performance.now() - started);
        if (!(error instanceof TransportError)) throw error;
        failed.add(endpoint);
        errors.push(`${endpoint}: ${error.message}`);
      } finally {
        this.inFlight.set(endpoint, (this.inFlight.get(endpoint) ?? 1) - 1);
      }
    }
    return sandboxError(
      `SandboxFusion failed after ${retries + 1} attempts: ${errors.join('; ')}`,
      performance.now() - started,
    );
  }

  private async attempt(endpoint: string, body: string, timeoutMs: number): Promise<RunCodeResponse> {
    const { token } = this.options;
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message;
      throw new TransportError(`${(error as Error).message}${detail ? ` (${detail})` : ''}`);
    }
    const text = await response.text().catch((error: Error) => {
      throw new TransportError(`reading the answer failed: ${error.message}`);
    });
    // 429: the server's queue is full (taorl-sandbox serve's back-pressure), 408: it gave up waiting for the
    // request; another try, or server, may be free.
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      throw new TransportError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    }
    if (!response.ok) {
      throw new RefusedError(
        `SandboxFusion at ${endpoint} refused the request: HTTP ${response.status}: ${text.slice(0, 500)}`,
      );
    }
    try {
      return JSON.parse(text) as RunCodeResponse;
    } catch {
      throw new TransportError(`the answer is not JSON: ${text.slice(0, 200)}`);
    }
  }
}

const SANDBOXFUSION_OPTIONS: readonly (keyof SandboxFusionOptions | 'backend')[] = [
  'backend',
  'url',
  'token',
  'concurrency',
  'retries',
  'retryDelayMs',
  'limits',
  'transportGraceMs',
  'serverOutputBytes',
];

interface ResolvedSandboxFusionOptions {
  endpoints: readonly string[];
  token: string | undefined;
  limits: ExecLimits;
  concurrency: number;
  retries: number;
  retryDelayMs: number;
  transportGraceMs: number;
  serverOutputBytes: number;
}

/** Checks the options field by field and fills in the defaults; throws a TypeError naming the field. */
export function resolveSandboxFusionOptions(options: SandboxFusionOptions): ResolvedSandboxFusionOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('createSandbox (sandboxfusion): options must be an object with a url');
  }
  rejectUnknownFields(options, SANDBOXFUSION_OPTIONS, 'createSandbox (sandboxfusion)');
  const urls: readonly unknown[] = Array.isArray(options.url) ? options.url : [options.url];
  if (urls.length === 0 || urls.some((url) => typeof url !== 'string' || !/^https?:\/\//.test(url))) {
    throw new TypeError(
      `createSandbox (sandboxfusion): url must be an http(s) URL or a non-empty array of them, got ${JSON.stringify(options.url)}`,
    );
  }
  const token = options.token ?? globalThis.process?.env?.TAORL_SANDBOX_TOKEN;
  if (token !== undefined && (typeof token !== 'string' || token === '')) {
    throw new TypeError('createSandbox (sandboxfusion): token must be a non-empty string');
  }
  const count = (value: number | undefined, fallback: number, field: string, min: number, max: number) =>
    integerIn(value, fallback, field, 'createSandbox (sandboxfusion)', { min, max });
  return {
    endpoints: (urls as string[]).map((url) => `${url.replace(/\/+$/, '')}/run_code`),
    token,
    limits: resolveLimits(options.limits, 'createSandbox (sandboxfusion) limits'),
    concurrency: count(options.concurrency, 8, 'concurrency', 1, MAX_CONCURRENCY),
    retries: count(options.retries, 3, 'retries', 0, 100),
    retryDelayMs: count(options.retryDelayMs, 200, 'retryDelayMs', 0, MAX_TIMER_MS),
    transportGraceMs: count(options.transportGraceMs, 30_000, 'transportGraceMs', 0, MAX_TIMER_MS),
    serverOutputBytes: count(options.serverOutputBytes, 64 * 1024, 'serverOutputBytes', 1, MAX_OUTPUT_BYTES),
  };
}

/** A client for a SandboxFusion server's POST /run_code, with retries and a concurrency limit. */
export async function createSandboxFusionSandbox(options: SandboxFusionOptions): Promise<Sandbox> {
  return new SandboxFusionClient(resolveSandboxFusionOptions(options));
}
