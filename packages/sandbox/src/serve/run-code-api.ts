import { constants } from 'node:os';
import { base64Content, checkFilePath } from '../limits';
import type { RunCodeResponse } from '../remote/sandboxfusion';
import type { ExecRequest, ExecResult } from '../types';

/**
 * SandboxFusion's POST /run_code on this server (field names and defaults from bytedance/SandboxFusion,
 * sandbox/server/sandbox_api.py). Only Python runs here; `compile_timeout` is accepted and has no use for it.
 */
export interface ServedRunCodeRequest {
  code: string;
  language: string;
  /** Seconds. Default 10, as SandboxFusion's. */
  run_timeout?: number;
  compile_timeout?: number;
  /** -1 (SandboxFusion's default, "no limit") takes the server's default limit. */
  memory_limit_MB?: number;
  stdin?: string | null;
  /** Path -> base64 content; a null content is skipped, as SandboxFusion does. */
  files?: Record<string, string | null>;
  fetch_files?: string[];
}

/** What the server answers: SandboxFusion's shape, plus `taorl`, the run as @taorl/sandbox classified it. */
export interface ServedRunCodeResponse extends RunCodeResponse {
  message: string;
  compile_result: null;
  executor_pod_name: null;
  files: Record<string, string>;
  taorl: {
    status: ExecResult['status'];
    exit_code: number | null;
    signal: string | null;
    stdout_truncated: boolean;
    stderr_truncated: boolean;
    duration_ms: number;
  };
}

/** Bounds a request may ask for; beyond them it is refused, not silently clamped. */
export interface RunCodeBounds {
  maxRunTimeoutMs: number;
  maxMemoryMb: number;
}

/** The request is malformed or asks for what this server does not do: HTTP 422 with this message. */
export class RunCodeRequestError extends Error {
  override name = 'RunCodeRequestError';
}

const SUPPORTED_LANGUAGES = ['python'];
const FIELDS = new Set([
  'code',
  'language',
  'run_timeout',
  'compile_timeout',
  'memory_limit_MB',
  'stdin',
  'files',
  'fetch_files',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function fail(message: string): never {
  throw new RunCodeRequestError(message);
}

function checkPath(path: unknown, label: string): void {
  try {
    checkFilePath(path, label);
  } catch (error) {
    fail((error as Error).message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function positiveNumber(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(`${field} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A /run_code body as an ExecRequest; throws RunCodeRequestError naming the field. Unknown fields are refused
 * rather than ignored, so that a client relying on something this server does not do hears of it.
 */
export function toExecRequest(body: unknown, bounds: RunCodeBounds): ExecRequest {
  if (!isRecord(body)) fail('the body must be a JSON object');
  const unknown = Object.keys(body).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) {
    fail(`unknown field(s) ${unknown.join(', ')}; this server reads ${[...FIELDS].join(', ')}`);
  }
  if (typeof body.code !== 'string') fail('code must be a string');
  if (!SUPPORTED_LANGUAGES.includes(body.language as string)) {
    fail(
      `language ${JSON.stringify(body.language)} is not supported by this server; supported: ${SUPPORTED_LANGUAGES.join(', ')}`,
    );
  }
  positiveNumber(body, 'compile_timeout');
  const runTimeoutMs = (positiveNumber(body, 'run_timeout') ?? 10) * 1000;
  if (runTimeoutMs > bounds.maxRunTimeoutMs) {
    fail(
      `run_timeout ${runTimeoutMs / 1000} s is over this server's limit of ${bounds.maxRunTimeoutMs / 1000} s`,
    );
  }
  const memory = body.memory_limit_MB;
  if (memory !== undefined && memory !== null && memory !== -1) {
    if (typeof memory !== 'number' || !Number.isInteger(memory) || memory <= 0) {
      fail(
        `memory_limit_MB must be a positive integer or -1 (the server's default), got ${JSON.stringify(memory)}`,
      );
    }
    if (memory > bounds.maxMemoryMb) {
      fail(`memory_limit_MB ${memory} is over this server's limit of ${bounds.maxMemoryMb}`);
    }
  }
  if (body.stdin !== undefined && body.stdin !== null && typeof body.stdin !== 'string') {
    fail('stdin must be a string or null');
  }
  const files = body.files ?? {};
  if (!isRecord(files)) fail('files must be an object mapping paths to base64 contents');
  const sent = Object.entries(files).flatMap(([path, content]) => {
    checkPath(path, `files key ${JSON.stringify(path)}`);
    if (content === null) return [];
    if (typeof content !== 'string' || !BASE64.test(content) || content.length % 4 !== 0) {
      fail(`files[${JSON.stringify(path)}] must be base64 text or null`);
    }
    return [{ path, content: new Uint8Array(Buffer.from(content, 'base64')) }];
  });
  const fetchFiles = body.fetch_files ?? [];
  if (!Array.isArray(fetchFiles) || fetchFiles.some((path) => typeof path !== 'string')) {
    fail('fetch_files must be an array of paths');
  }
  for (const [index, path] of fetchFiles.entries()) checkPath(path, `fetch_files[${index}]`);
  return {
    code: body.code,
    stdin: body.stdin ?? '',
    timeoutMs: runTimeoutMs,
    ...(typeof memory === 'number' && memory > 0 ? { memoryMb: memory } : {}),
    files: sent,
    fetchFiles,
  };
}

/**
 * @taorl/sandbox's statuses onto SandboxFusion's: ok -> Success / Finished, return code 0; error, memory, killed and
 * output_limit -> Failed / Finished with the return code (minus the signal's number for a process a signal ended,
 * as SandboxFusion reports it); timeout -> Failed / TimeLimitExceeded, return code null; sandbox_error ->
 * SandboxError / Error with the reason in `message`. `taorl` keeps the precise status.
 */
export function toRunCodeResponse(result: ExecResult): ServedRunCodeResponse {
  const failedRun = result.status === 'sandbox_error';
  const signalNumber =
    result.signal === null ? undefined : constants.signals[result.signal as NodeJS.Signals];
  const returnCode =
    failedRun || result.status === 'timeout'
      ? null
      : (result.exitCode ?? (signalNumber === undefined ? null : -signalNumber));
  const files: Record<string, string> = {};
  for (const file of result.files ?? []) files[file.path] = base64Content(file.content);
  return {
    status: failedRun ? 'SandboxError' : result.status === 'ok' ? 'Success' : 'Failed',
    message: failedRun ? (result.sandboxMessage ?? 'the sandbox failed') : '',
    compile_result: null,
    run_result: {
      status: failedRun ? 'Error' : result.status === 'timeout' ? 'TimeLimitExceeded' : 'Finished',
      execution_time: result.durationMs / 1000,
      return_code: returnCode,
      stdout: result.stdout,
      stderr: result.stderr,
    },
    executor_pod_name: null,
    files,
    taorl: {
      status: result.status,
      exit_code: result.exitCode,
      signal: result.signal,
      stdout_truncated: result.stdoutTruncated,
      stderr_truncated: result.stderrTruncated,
      duration_ms: result.durationMs,
    },
  };
}
