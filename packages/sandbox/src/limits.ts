import { MAX_OUTPUT_BYTES, MAX_TIMER_MS } from './ranges';
import type { ExecRequest, SandboxFile } from './types';
import { rejectUnknownFields } from './unknown-fields';

/** Resource limits of one execution. */
export interface ExecLimits {
  /** Wall-clock limit. Default 10 000. */
  timeoutMs: number;
  /** CPU time per process. Default: the wall-clock limit. */
  cpuTimeMs: number;
  /** Address space per process, preloaded interpreter included (about 90 MB with sympy and numpy). Default 1024. */
  memoryMb: number;
  /** Processes and threads the code's uid may have at once (RLIMIT_NPROC). Default 32. */
  maxProcesses: number;
  /** Largest file the code may write (RLIMIT_FSIZE). Default 16 MiB. */
  maxFileBytes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). Default 128. */
  maxOpenFiles: number;
  /** Bytes kept of stdout and of stderr each; going past stops the code with `output_limit`. Default 1 MiB. */
  maxOutputBytes: number;
}

export const DEFAULT_LIMITS: ExecLimits = {
  timeoutMs: 10_000,
  cpuTimeMs: 10_000,
  memoryMb: 1024,
  maxProcesses: 32,
  maxFileBytes: 16 * 1024 * 1024,
  maxOpenFiles: 128,
  maxOutputBytes: 1024 * 1024,
};

/** The largest value of each limit: past it a timer fires at once, or the host cannot have it. */
export const LIMIT_MAXIMA: Readonly<Record<keyof ExecLimits, number>> = {
  timeoutMs: MAX_TIMER_MS,
  cpuTimeMs: MAX_TIMER_MS,
  // 1 TiB.
  memoryMb: 1024 * 1024,
  // Linux's largest pid_max.
  maxProcesses: 4_194_304,
  maxFileBytes: Number.MAX_SAFE_INTEGER,
  // Linux's default fs.nr_open.
  maxOpenFiles: 1_048_576,
  maxOutputBytes: MAX_OUTPUT_BYTES,
};

function positiveInteger(value: unknown, field: keyof ExecLimits, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${where}: ${field} must be a positive number, got ${String(value)}`);
  }
  if (value > LIMIT_MAXIMA[field]) {
    throw new TypeError(`${where}: ${field} must be at most ${LIMIT_MAXIMA[field]}, got ${value}`);
  }
  return Math.ceil(value);
}

/** Fills in defaults and checks every limit; `where` names the caller in error messages. */
export function resolveLimits(partial: Partial<ExecLimits> | undefined, where: string): ExecLimits {
  if (partial !== undefined && (partial === null || typeof partial !== 'object' || Array.isArray(partial))) {
    throw new TypeError(`${where} must be an object, got ${JSON.stringify(partial)}`);
  }
  if (partial) rejectUnknownFields(partial, Object.keys(DEFAULT_LIMITS), where);
  const merged = { ...DEFAULT_LIMITS, ...partial };
  if (partial?.timeoutMs !== undefined && partial.cpuTimeMs === undefined)
    merged.cpuTimeMs = partial.timeoutMs;
  const limits = {} as ExecLimits;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ExecLimits)[]) {
    limits[key] = positiveInteger(merged[key], key, where);
  }
  return limits;
}

/** A request checked field by field, with the sandbox's limits applied. */
export interface ResolvedRequest {
  code: string;
  stdin: string;
  files: readonly SandboxFile[];
  fetchFiles: readonly string[];
  session: readonly string[];
  limits: ExecLimits;
}

/** A file's content as base64, the form both backends send. */
export function base64Content(content: string | Uint8Array): string {
  return (typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content)).toString(
    'base64',
  );
}

/**
 * Top-level names absent from the sandbox's read-only root under which the code may write, as on a normal root
 * (/tmp/x, /mnt/data/y): the local backend links each to a directory of the run's own, and a request's absolute
 * paths must lie under one of them.
 */
export const WRITABLE_ROOT_NAMES: readonly string[] = [
  'tmp',
  'var',
  'mnt',
  'media',
  'opt',
  'srv',
  'home',
  'root',
  'data',
  'workspace',
];

/** The longest path a request may name, in UTF-8 bytes: Linux's PATH_MAX (4096) less the sandbox's own prefix. */
export const MAX_PATH_BYTES = 4064;
const MAX_NAME_BYTES = 255;
const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * Checks a path of a request's files or fetchFiles: relative to the scratch directory, or absolute under one of
 * WRITABLE_ROOT_NAMES; `label` names it in the error.
 */
export function checkFilePath(path: unknown, label: string): string {
  const absolute = typeof path === 'string' && path.startsWith('/');
  const segments = typeof path === 'string' ? (absolute ? path.slice(1) : path).split('/') : [];
  if (
    typeof path !== 'string' ||
    path.includes('\0') ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..')
  ) {
    throw new TypeError(
      `${label} must be a path to a file inside the scratch directory ` +
        `(names separated by single slashes, no "." or ".." and no trailing slash), got ${JSON.stringify(path)}`,
    );
  }
  if (absolute && (segments.length < 2 || !WRITABLE_ROOT_NAMES.includes(segments[0] as string))) {
    throw new TypeError(
      `${label} ${JSON.stringify(path)} is absolute: only paths under /${WRITABLE_ROOT_NAMES.join(', /')} ` +
        "(the run's own directories) may be",
    );
  }
  if (utf8Length(path) > MAX_PATH_BYTES || segments.some((segment) => utf8Length(segment) > MAX_NAME_BYTES)) {
    throw new TypeError(
      `${label} is too long for the file system: at most ${MAX_PATH_BYTES} bytes, and ${MAX_NAME_BYTES} a name ` +
        `(got ${utf8Length(path)} bytes: ${JSON.stringify(path.slice(0, 60))}...)`,
    );
  }
  return path;
}

/** Two files at one path, or a file where another one needs a directory, cannot both be written. */
function checkFileLayout(paths: readonly string[]): void {
  const fileAt = new Map(paths.map((path, index) => [path, index]));
  paths.forEach((path, index) => {
    if (fileAt.get(path) !== index) {
      throw new TypeError(
        `ExecRequest.files[${index}].path ${JSON.stringify(path)} repeats files[${fileAt.get(path)}]`,
      );
    }
    for (let end = path.indexOf('/'); end >= 0; end = path.indexOf('/', end + 1)) {
      const directory = path.slice(0, end);
      const other = fileAt.get(directory);
      if (other !== undefined) {
        throw new TypeError(
          `ExecRequest.files[${index}].path ${JSON.stringify(path)} needs ${JSON.stringify(directory)} as a ` +
            `directory, which files[${other}] is`,
        );
      }
    }
  });
}

const EXEC_REQUEST_FIELDS: readonly (keyof ExecRequest)[] = [
  'code',
  'stdin',
  'timeoutMs',
  'cpuTimeMs',
  'memoryMb',
  'files',
  'fetchFiles',
  'session',
];

/** Validates a request and merges its limits over the sandbox's; throws TypeError naming the bad field. */
export function resolveRequest(request: ExecRequest, defaults: ExecLimits): ResolvedRequest {
  if (request === null || typeof request !== 'object') throw new TypeError('ExecRequest must be an object');
  rejectUnknownFields(request, EXEC_REQUEST_FIELDS, 'ExecRequest');
  if (typeof request.code !== 'string') throw new TypeError('ExecRequest.code must be a string');
  if (request.stdin !== undefined && typeof request.stdin !== 'string') {
    throw new TypeError('ExecRequest.stdin must be a string');
  }
  const files = request.files ?? [];
  if (!Array.isArray(files)) throw new TypeError('ExecRequest.files must be an array of { path, content }');
  const paths = files.map((file, index) => {
    const path = checkFilePath(file?.path, `ExecRequest.files[${index}].path`);
    if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) {
      throw new TypeError(`ExecRequest.files[${index}].content must be a string or Uint8Array`);
    }
    return path;
  });
  checkFileLayout(paths);
  const fetchFiles = request.fetchFiles ?? [];
  if (!Array.isArray(fetchFiles)) throw new TypeError('ExecRequest.fetchFiles must be an array of paths');
  // A map, not indexOf per name: 160,000 names blocked the event loop for 13.5 s that way.
  const firstAt = new Map<string, number>();
  fetchFiles.forEach((path, index) => {
    checkFilePath(path, `ExecRequest.fetchFiles[${index}]`);
    const first = firstAt.get(path);
    if (first !== undefined) {
      throw new TypeError(
        `ExecRequest.fetchFiles[${index}] ${JSON.stringify(path)} repeats fetchFiles[${first}]`,
      );
    }
    firstAt.set(path, index);
  });
  const session = request.session ?? [];
  if (!Array.isArray(session) || session.some((cell) => typeof cell !== 'string')) {
    throw new TypeError('ExecRequest.session must be an array of code strings');
  }
  // A request that sets only its wall-clock limit gets the same CPU-time limit, as a sandbox does.
  const limits = resolveLimits(
    {
      ...defaults,
      timeoutMs: request.timeoutMs ?? defaults.timeoutMs,
      cpuTimeMs: request.cpuTimeMs ?? request.timeoutMs ?? defaults.cpuTimeMs,
      memoryMb: request.memoryMb ?? defaults.memoryMb,
    },
    'ExecRequest',
  );
  return { code: request.code, stdin: request.stdin ?? '', files, fetchFiles, session, limits };
}

/** Checks every request of a batch before any runs; the error names the failing request's index. */
export function resolveBatch(requests: readonly ExecRequest[], defaults: ExecLimits): ResolvedRequest[] {
  if (!Array.isArray(requests)) throw new TypeError('runMany: requests must be an array');
  return requests.map((request, index) => {
    try {
      return resolveRequest(request, defaults);
    } catch (error) {
      throw new TypeError(`runMany: request ${index}: ${(error as Error).message}`);
    }
  });
}
