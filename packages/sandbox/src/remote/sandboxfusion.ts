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
import { sandboxError } from '../sandbox-error';
import type { ExecRequest, ExecResult, ExecStatus, Sandbox } from '../types';
import { rejectUnknownFields } from '../unknown-fields';

export interface SandboxFusionOptions {
  /** Base URL of the server, e.g. http://sandbox:8080; requests go to `${url}/run_code`. */
  url: string;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /** Extra attempts after a transport error (connection refused or reset, HTTP 5xx, no answer in time). Default 3. */
  retries?: number;
  /** Wait before the first retry, doubled each time. Default 200. */
  retryDelayMs?: number;
  /** Default limits; the server enforces timeoutMs (run_timeout) and memoryMb (memory_limit_MB) only. */
  limits?: Partial<ExecLimits>;
  /** Extra time the server may take beyond run_timeout before a call counts as a transport error. Default 30 000. */
  transportGraceMs?: number;
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
}

export function toRunCodeRequest(request: ResolvedRequest): RunCodeRequest {
  const files: Record<string, string> = {};
  for (const file of request.files) files[file.path] = base64Content(file.content);
  // SandboxFusion keeps no state between calls: a session is replayed by prefixing its cells, output silenced.
  const code =
    request.session.length === 0 ? request.code : `${replayPrelude(request.session)}\n${request.code}`;
  return {
    code,
    language: 'python',
    run_timeout: request.limits.timeoutMs / 1000,
    memory_limit_MB: request.limits.memoryMb,
    stdin: request.stdin,
    files,
  };
}

function replayPrelude(cells: readonly string[]): string {
  const quoted = JSON.stringify(cells);
  return [
    'import contextlib as __taorl_cl, io as __taorl_io',
    `for __taorl_cell in ${quoted}:`,
    '    with __taorl_cl.redirect_stdout(__taorl_io.StringIO()), __taorl_cl.redirect_stderr(__taorl_io.StringIO()):',
    '        try:',
    '            exec(__taorl_cell, globals())',
    '        except Exception:',
    '            pass',
  ].join('\n');
}

/**
 * SandboxFusion's statuses onto ours: SandboxError, a missing run_result or run status Error -> sandbox_error;
 * TimeLimitExceeded -> timeout; Finished with return code 0 -> ok; non-zero with a MemoryError as the
 * traceback's last line -> memory; a negative code (killed by a signal) -> killed; other non-zero -> error.
 */
export function fromRunCodeResponse(response: RunCodeResponse, maxOutputBytes: number): ExecResult {
  const run = response.run_result;
  if (response.status === 'SandboxError' || !run || run.status === 'Error') {
    return sandboxError(
      `SandboxFusion: ${response.status}${response.message ? `: ${response.message}` : ''}`,
    );
  }
  const stdout = run.stdout ?? '';
  const stderr = run.stderr ?? '';
  const code = run.return_code;
  let status: ExecStatus;
  if (run.status === 'TimeLimitExceeded') status = 'timeout';
  else if (code === 0) status = 'ok';
  else if (endsWithMemoryError(stderr)) status = 'memory';
  else if (code !== null && code < 0) status = 'killed';
  else status = 'error';
  const cap = (text: string) =>
    Buffer.byteLength(text) > maxOutputBytes
      ? Buffer.from(text).subarray(0, maxOutputBytes).toString()
      : text;
  const stdoutTruncated = Buffer.byteLength(stdout) > maxOutputBytes;
  const stderrTruncated = Buffer.byteLength(stderr) > maxOutputBytes;
  return {
    status: status === 'ok' && (stdoutTruncated || stderrTruncated) ? 'output_limit' : status,
    exitCode: code !== null && code >= 0 ? code : null,
    signal: code !== null && code < 0 ? signalName(-code) : null,
    stdout: cap(stdout),
    stderr: cap(stderr),
    stdoutTruncated,
    stderrTruncated,
    durationMs: (run.execution_time ?? 0) * 1000,
  };
}

function signalName(number: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === number);
  return entry ? entry[0] : `signal ${number}`;
}

class TransportError extends Error {}

class SandboxFusionClient implements Sandbox {
  readonly backend = 'sandboxfusion';
  private readonly semaphore: Semaphore;
  private closed = false;

  constructor(
    private readonly endpoint: string,
    private readonly limits: ExecLimits,
    private readonly concurrency: number,
    private readonly retries: number,
    private readonly retryDelayMs: number,
    private readonly graceMs: number,
  ) {
    this.semaphore = new Semaphore(concurrency);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.closed) throw new Error('@taorl/sandbox: run() after close()');
    const resolved = resolveRequest(request, this.limits);
    return this.semaphore.use(() => this.post(resolved));
  }

  async runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]> {
    resolveBatch(requests, this.limits);
    return mapWithConcurrency(requests, this.concurrency, (request) => this.run(request));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async post(request: ResolvedRequest): Promise<ExecResult> {
    const body = JSON.stringify(toRunCodeRequest(request));
    const started = performance.now();
    let lastError = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs * 2 ** (attempt - 1)));
      try {
        const response = await this.attempt(body, request.limits.timeoutMs + this.graceMs);
        return fromRunCodeResponse(response, request.limits.maxOutputBytes);
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        lastError = error.message;
      }
    }
    return sandboxError(
      `SandboxFusion at ${this.endpoint} failed after ${this.retries + 1} attempts: ${lastError}`,
      performance.now() - started,
    );
  }

  private async attempt(body: string, timeoutMs: number): Promise<RunCodeResponse> {
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
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
    if (response.status >= 500) throw new TransportError(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    if (!response.ok) {
      throw new Error(`SandboxFusion rejected the request: HTTP ${response.status}: ${text.slice(0, 500)}`);
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
  'concurrency',
  'retries',
  'retryDelayMs',
  'limits',
  'transportGraceMs',
];

interface ResolvedSandboxFusionOptions {
  endpoint: string;
  limits: ExecLimits;
  concurrency: number;
  retries: number;
  retryDelayMs: number;
  transportGraceMs: number;
}

/** Checks the options field by field and fills in the defaults; throws a TypeError naming the field. */
export function resolveSandboxFusionOptions(options: SandboxFusionOptions): ResolvedSandboxFusionOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('createSandbox (sandboxfusion): options must be an object with a url');
  }
  rejectUnknownFields(options, SANDBOXFUSION_OPTIONS, 'createSandbox (sandboxfusion)');
  if (typeof options.url !== 'string' || !/^https?:\/\//.test(options.url)) {
    throw new TypeError(
      `createSandbox (sandboxfusion): url must be an http(s) URL, got ${JSON.stringify(options.url)}`,
    );
  }
  const count = (value: number | undefined, fallback: number, field: string, min: number) => {
    const resolved = value ?? fallback;
    if (!Number.isInteger(resolved) || resolved < min) {
      throw new TypeError(
        `createSandbox (sandboxfusion): ${field} must be an integer >= ${min}, got ${value}`,
      );
    }
    return resolved;
  };
  return {
    endpoint: `${options.url.replace(/\/+$/, '')}/run_code`,
    limits: resolveLimits(options.limits, 'createSandbox (sandboxfusion) limits'),
    concurrency: count(options.concurrency, 8, 'concurrency', 1),
    retries: count(options.retries, 3, 'retries', 0),
    retryDelayMs: count(options.retryDelayMs, 200, 'retryDelayMs', 0),
    transportGraceMs: count(options.transportGraceMs, 30_000, 'transportGraceMs', 0),
  };
}

/** A client for a SandboxFusion server's POST /run_code, with retries and a concurrency limit. */
export async function createSandboxFusionSandbox(options: SandboxFusionOptions): Promise<Sandbox> {
  const resolved = resolveSandboxFusionOptions(options);
  return new SandboxFusionClient(
    resolved.endpoint,
    resolved.limits,
    resolved.concurrency,
    resolved.retries,
    resolved.retryDelayMs,
    resolved.transportGraceMs,
  );
}
