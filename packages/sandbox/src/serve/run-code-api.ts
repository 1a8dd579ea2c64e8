import { constants } from 'node:os';
import { posix } from 'node:path';
import { base64Content, checkFilePath } from '../limits';
import type { RunCodeResponse } from '../remote/sandboxfusion';
import type { ExecRequest, ExecResult } from '../types';

/**
 * SandboxFusion's POST /run_code on this server (field names and defaults from bytedance/SandboxFusion,
 * sandbox/server/sandbox_api.py). Python only: `language` python, or pytest (the code as a test file run by
 * pytest); `compile_timeout` is accepted and has no use for it. Other fields are ignored, as SandboxFusion does.
 */
export interface ServedRunCodeRequest {
  code: string;
  language: 'python' | 'pytest';
  /**
   * Seconds, > 0 (a number, or text holding one, as pydantic reads it). Default 10, as SandboxFusion's; over the
   * server's maximum: the maximum. 0 or less is refused (SandboxFusion times such a run out before it starts).
   */
  run_timeout?: number;
  compile_timeout?: number;
  /**
   * Megabytes, >= 1, or -1: SandboxFusion's default, no limit there, the server's maximum here (as is a value over
   * it). 0 and other negative values are refused (SandboxFusion reads every value <= 0 as no limit).
   */
  memory_limit_MB?: number;
  stdin?: string | null;
  /**
   * Path -> base64 content; a null content is skipped, as SandboxFusion does. Paths are relative to the working
   * directory, or absolute under /tmp, /mnt and the other names of WRITABLE_ROOT_NAMES: the run's own directories.
   */
  files?: Record<string, string | null>;
  /** Paths as in `files`, answered under the same spelling in the answer's `files`. */
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
    /** run_timeout (seconds) and memory_limit_MB where the server applied other values than those asked for. */
    clamped: RunCodeNotes['clamped'];
    /** Fields of the request this server ignored. */
    ignored_fields: string[];
  };
}

/** The server's maxima for what a request asks. */
export interface RunCodeBounds {
  maxRunTimeoutMs: number;
  maxMemoryMb: number;
}

/** A limit the server applied instead of the one asked for. */
export interface ClampedLimit {
  requested: number;
  applied: number;
}

/** What the server did with a request beyond running it, reported in the answer's `taorl`. */
export interface RunCodeNotes {
  /** run_timeout (seconds) and memory_limit_MB as asked and as applied, where they differ. */
  clamped: { run_timeout?: ClampedLimit; memory_limit_MB?: ClampedLimit };
  /** Fields of the body this server does not read; ignored, as SandboxFusion's pydantic model ignores them. */
  ignoredFields: string[];
  /** For each fetched path: the fetch_files entries that named it (they may spell it differently). */
  fetchNames: Map<string, string[]>;
}

/** A /run_code body read: the request to run, and what to report about it. */
export interface ServedRequest {
  request: ExecRequest;
  notes: RunCodeNotes;
}

/** The request is malformed or asks for what this server does not do: HTTP 422 with this message. */
export class RunCodeRequestError extends Error {
  override name = 'RunCodeRequestError';
}

const SUPPORTED_LANGUAGES = ['python', 'pytest'];
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
const NUMERIC_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

function fail(message: string): never {
  throw new RunCodeRequestError(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A number field as pydantic reads it (a number, or text holding one); undefined when absent or null. */
function numberField(body: Record<string, unknown>, field: string, integer: boolean): number | undefined {
  const raw = body[field];
  if (raw === undefined || raw === null) return undefined;
  const value = typeof raw === 'string' && NUMERIC_TEXT.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    fail(`${field} must be ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A path of files or fetch_files as the sandbox takes it: "." and ".." resolved, repeated slashes collapsed (as
 * SandboxFusion's os.path.join would find the file); one that leaves the scratch space, or is absolute outside the
 * run's own directories, is refused naming the field.
 */
function sandboxPath(path: unknown, label: string): string {
  if (typeof path !== 'string') fail(`${label} must be a string, got ${JSON.stringify(path)}`);
  const normalized = posix.normalize(path);
  if (normalized === '..' || normalized.startsWith('../') || normalized === '/' || normalized === '.') {
    fail(`${label} leaves the run's scratch directory, got ${JSON.stringify(path)}`);
  }
  try {
    return checkFilePath(normalized, label);
  } catch (error) {
    fail((error as Error).message);
  }
}

/** A limit within (0, max]: a value over the maximum, or -1 for none at all, is the maximum, reported. */
function clamp(
  requested: number,
  max: number,
  field: 'run_timeout' | 'memory_limit_MB',
  notes: RunCodeNotes,
) {
  if (requested !== -1 && requested <= max) return requested;
  notes.clamped[field] = { requested, applied: max };
  return max;
}

/** run_timeout in seconds: > 0, or a 422 naming it (a limit of 0 would run nothing; SandboxFusion's default is 10). */
function runTimeout(body: Record<string, unknown>): number {
  const seconds = numberField(body, 'run_timeout', false) ?? 10;
  if (seconds <= 0) {
    fail(`run_timeout must be > 0 seconds (leave it out for 10), got ${JSON.stringify(body.run_timeout)}`);
  }
  return seconds;
}

/** memory_limit_MB: >= 1, or -1 (SandboxFusion's default: no limit, which is the server's maximum here). */
function memoryLimit(body: Record<string, unknown>, max: number): number {
  const megabytes = numberField(body, 'memory_limit_MB', true) ?? -1;
  if (megabytes < 1 && megabytes !== -1) {
    fail(
      "memory_limit_MB must be >= 1, or -1 for no limit of its own (the server's maximum, " +
        `${max} MB), got ${JSON.stringify(body.memory_limit_MB)}`,
    );
  }
  return megabytes;
}

/** The file the code of a `language: pytest` request is written to: a name no file of the request takes. */
function pytestFile(taken: ReadonlySet<string>): string {
  let name = 'test_code.py';
  for (let index = 1; taken.has(name); index++) name = `test_code_${index}.py`;
  return name;
}

/**
 * A /run_code body as the request to run; throws RunCodeRequestError naming the field. SandboxFusion's model is the
 * reference (sandbox/server/sandbox_api.py): unknown fields are ignored, and limits are applied within the server's
 * maxima, each adjustment reported in the answer (memory_limit_MB -1, its default "no limit", is the maximum). A
 * limit that SandboxFusion would turn into a run timed out at once (run_timeout <= 0) or into no limit by accident
 * (memory_limit_MB 0 or below -1) is refused rather than read as another value.
 */
export function toExecRequest(body: unknown, bounds: RunCodeBounds): ServedRequest {
  if (!isRecord(body)) fail('the body must be a JSON object');
  const notes: RunCodeNotes = {
    clamped: {},
    ignoredFields: Object.keys(body).filter((key) => !FIELDS.has(key)),
    fetchNames: new Map(),
  };
  if (typeof body.code !== 'string') fail('code must be a string');
  const language = body.language;
  if (typeof language !== 'string' || !SUPPORTED_LANGUAGES.includes(language)) {
    fail(
      `language ${JSON.stringify(language)} is not supported by this server; supported: ${SUPPORTED_LANGUAGES.join(', ')}`,
    );
  }
  numberField(body, 'compile_timeout', false);
  const maxRunTimeoutS = bounds.maxRunTimeoutMs / 1000;
  const runTimeoutS = clamp(runTimeout(body), maxRunTimeoutS, 'run_timeout', notes);
  const memoryMb = clamp(memoryLimit(body, bounds.maxMemoryMb), bounds.maxMemoryMb, 'memory_limit_MB', notes);
  if (body.stdin !== undefined && body.stdin !== null && typeof body.stdin !== 'string') {
    fail('stdin must be a string or null');
  }
  const files = body.files ?? {};
  if (!isRecord(files)) fail('files must be an object mapping paths to base64 contents');
  // A later key for the same file replaces an earlier one, as SandboxFusion writes them in order.
  const contents = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files)) {
    const label = `files key ${JSON.stringify(path)}`;
    const at = sandboxPath(path, label);
    if (content === null) continue;
    if (typeof content !== 'string' || !BASE64.test(content) || content.length % 4 !== 0) {
      fail(`files[${JSON.stringify(path)}] must be base64 text or null`);
    }
    contents.delete(at);
    contents.set(at, new Uint8Array(Buffer.from(content, 'base64')));
  }
  const fetchFiles = body.fetch_files ?? [];
  if (!Array.isArray(fetchFiles)) fail('fetch_files must be an array of paths');
  for (const [index, path] of fetchFiles.entries()) {
    const at = sandboxPath(path, `fetch_files[${index}]`);
    notes.fetchNames.set(at, [...(notes.fetchNames.get(at) ?? []), path as string]);
  }
  let code = body.code;
  if (language === 'pytest') {
    // As SandboxFusion runs `pytest <file>`: the code as a test file in the working directory.
    const name = pytestFile(new Set(contents.keys()));
    contents.set(name, new Uint8Array(Buffer.from(code, 'utf8')));
    code = `import sys\nimport pytest\nsys.exit(pytest.main([${JSON.stringify(name)}]))\n`;
  }
  return {
    request: {
      code,
      stdin: body.stdin ?? '',
      timeoutMs: runTimeoutS * 1000,
      memoryMb,
      files: [...contents].map(([path, content]) => ({ path, content })),
      fetchFiles: [...notes.fetchNames.keys()],
    },
    notes,
  };
}

/**
 * @taorl/sandbox's statuses onto SandboxFusion's: ok -> Success / Finished, return code 0; error, memory and killed
 * -> Failed / Finished with the return code (minus the signal's number for a process a signal ended, as
 * SandboxFusion reports it); output_limit -> Failed / Finished, return code -9 whether the sandbox's SIGKILL or
 * the program's own end came first (never 0, which clients read as a contradiction); timeout -> Failed /
 * TimeLimitExceeded, return code null; sandbox_error -> SandboxError / Error with the reason in `message`.
 * `taorl` keeps the precise status, the process's own exit code and signal, and the notes.
 */
export function toRunCodeResponse(result: ExecResult, notes: RunCodeNotes): ServedRunCodeResponse {
  const failedRun = result.status === 'sandbox_error';
  const signalNumber =
    result.signal === null ? undefined : constants.signals[result.signal as NodeJS.Signals];
  const returnCode =
    failedRun || result.status === 'timeout'
      ? null
      : result.status === 'output_limit'
        ? -constants.signals.SIGKILL
        : (result.exitCode ?? (signalNumber === undefined ? null : -signalNumber));
  // A null prototype: a fetched file may be named __proto__.
  const files: Record<string, string> = Object.create(null);
  for (const file of result.files ?? []) {
    for (const name of notes.fetchNames.get(file.path) ?? [file.path])
      files[name] = base64Content(file.content);
  }
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
      clamped: notes.clamped,
      ignored_fields: notes.ignoredFields,
    },
  };
}
