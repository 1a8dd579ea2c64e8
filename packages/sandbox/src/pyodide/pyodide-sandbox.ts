import { Semaphore } from '../concurrency';
import { type ExecLimits, type ResolvedRequest, resolveBatch, resolveRequest } from '../limits';
import { toExecResult, type WorkerReply } from '../local/classify';
import { sandboxError } from '../sandbox-error';
import type { ExecRequest, ExecResult, Sandbox, SandboxFile } from '../types';
import { expectMessage, type Interpreter } from './interpreter';

/** The pyodide backend's sandbox: the common interface plus the packages its interpreters have. */
export interface PyodideSandbox extends Sandbox {
  /** The pure-Python packages copied into every interpreter. */
  readonly packages: readonly string[];
}

/** What each interpreter starts from: the snapshot's memory and packages, and (a browser) where Pyodide's files are. */
interface Snapshot {
  snapshot: Uint8Array;
  site: Uint8Array | null;
  indexURL?: string;
}

/** How the pool runs: the resolved options of the Node and the browser backend have these in common. */
export interface PoolOptions {
  workers: number;
  limits: ExecLimits;
  packages: readonly string[];
  preload: readonly string[];
  startupTimeoutMs: number;
  /** Where a browser's interpreters load Pyodide's files from; Node's load the npm package's. */
  indexURL?: string;
}

const encoder = new TextEncoder();

/** A run's result, and (when its process ended the run itself and serves another) the process once ready again. */
interface Executed {
  result: ExecResult;
  ready: Promise<Interpreter> | null;
}

/**
 * Runs one request in a started interpreter. The wall clock (the smaller of timeoutMs and cpuTimeMs: a run is one
 * thread) and the output cap are kept here, by killing the interpreter's process; so is any process whose run did
 * not end with its 'done'.
 */
function execute(
  interpreter: Interpreter,
  request: ResolvedRequest,
  whenReady: (interpreter: Interpreter) => Promise<Interpreter>,
): Promise<Executed> {
  const { limits } = request;
  const chunks = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
  const sizes = { stdout: 0, stderr: 0 };
  let timedOut = false;
  let outputExceeded = false;
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: ExecResult, reusable = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!reusable) interpreter.kill();
      // Listened for at once: a process put back in place says 'ready' right after its 'done'.
      resolve({ result, ready: reusable ? whenReady(interpreter) : null });
    };
    const reply = (
      exitCode: number | null,
      signal: string | null,
      files: { path: string; content: Uint8Array }[],
    ): ExecResult => {
      const text = (stream: 'stdout' | 'stderr') =>
        new TextDecoder().decode(concat(chunks[stream]).subarray(0, limits.maxOutputBytes));
      const facts: WorkerReply = {
        exitCode,
        signal,
        stdout: text('stdout'),
        stderr: text('stderr'),
        stdoutTruncated: sizes.stdout > limits.maxOutputBytes,
        stderrTruncated: sizes.stderr > limits.maxOutputBytes,
        timedOut,
        outputExceeded,
        oomKilled: false,
        setupFailed: false,
        durationMs: performance.now() - started,
        clean: true,
        files: [],
      };
      const result = toExecResult(facts, false);
      if (request.fetchFiles.length > 0) result.files = files;
      return result;
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        interpreter.kill();
      },
      Math.min(limits.timeoutMs, limits.cpuTimeMs),
    );
    interpreter.listen((message) => {
      if (message.type === 'output') {
        chunks[message.stream].push(message.data);
        sizes[message.stream] += message.data.length;
        if (sizes[message.stream] > limits.maxOutputBytes) {
          outputExceeded = true;
          interpreter.kill();
        }
      } else if (message.type === 'done') {
        settle(reply(message.exitCode, null, message.files), message.reusable);
      } else if (message.type === 'failed') {
        settle(
          sandboxError(`the pyodide interpreter failed: ${message.message}`, performance.now() - started),
        );
      }
    });
    void interpreter.whenExited().then(({ code, signal }) => {
      // Killed here for the wall clock or the output cap, or died on its own (its signal, or Node's exit code).
      settle(reply(signal === null ? code : null, signal, []));
    });
    const sent = interpreter.send({
      type: 'run',
      request: {
        code: request.code,
        stdin: request.stdin,
        files: request.files.map((file) => ({
          path: file.path,
          content: typeof file.content === 'string' ? encoder.encode(file.content) : file.content,
        })),
        fetchFiles: request.fetchFiles,
        session: request.session,
        limits,
      },
    });
    if (!sent) settle(sandboxError('the pyodide interpreter exited before its run'));
  });
}

/**
 * Runs one process serves before it is replaced: each run starts from the snapshot's state anyway; the cap bounds
 * what a long-lived Node process might accumulate (its resident memory stayed flat over 15 loads, measured).
 */
const RUNS_PER_PROCESS = 100;

class PyodidePool implements PyodideSandbox {
  readonly backend = 'pyodide';
  private readonly lanes: Semaphore;
  /**
   * Interpreters loaded ahead of their runs, one per lane: a run never waits for a load it could avoid. A process
   * makes its interpreter ready for the next run as soon as its run is done (put back in place, or loaded fresh), so
   * no run pays for starting a process.
   */
  private readonly prepared: Promise<Interpreter>[] = [];
  private readonly live = new Set<Interpreter>();
  private readonly served = new WeakMap<Interpreter, number>();
  private closed = false;

  constructor(
    private readonly snapshot: Snapshot,
    private readonly options: PoolOptions,
    private readonly startInterpreter: () => Interpreter,
    /** Its interpreters serve the next run themselves from the snapshot's state (Node's processes, no web worker). */
    private readonly reuse: boolean,
  ) {
    this.lanes = new Semaphore(options.workers);
    for (let lane = 0; lane < options.workers; lane++) this.prepared.push(this.prepare());
  }

  get packages(): readonly string[] {
    return this.options.packages;
  }

  private prepare(): Promise<Interpreter> {
    const interpreter = this.startInterpreter();
    this.live.add(interpreter);
    void interpreter.whenExited().then(() => this.live.delete(interpreter));
    interpreter.send({ type: 'start', ...this.snapshot, reuse: this.reuse });
    return this.whenReady(interpreter);
  }

  /** The process once its next interpreter is loaded. */
  private whenReady(interpreter: Interpreter): Promise<Interpreter> {
    const ready = expectMessage(
      interpreter,
      'ready',
      this.options.startupTimeoutMs,
      'a pyodide interpreter',
    ).then(() => interpreter);
    // Awaited when a run takes it; until then a failed start must not count as unhandled.
    ready.catch(() => {});
    return ready;
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.closed) throw new Error('@taorl/sandbox: run() after close()');
    const resolved = resolveRequest(request, this.options.limits);
    return this.lanes.use(async () => {
      const next = this.prepared.shift() as Promise<Interpreter>;
      // An interpreter that serves one run only is replaced at once, so its successor starts while this run runs.
      const replacedAhead = !this.reuse && !this.closed;
      if (replacedAhead) this.prepared.push(this.prepare());
      let interpreter: Interpreter;
      try {
        interpreter = await next;
      } catch (error) {
        if (!replacedAhead && !this.closed) this.prepared.push(this.prepare());
        return sandboxError(`@taorl/sandbox: ${(error as Error).message}`);
      }
      const { result, ready } = await execute(interpreter, resolved, (started) => this.whenReady(started));
      const served = (this.served.get(interpreter) ?? 0) + 1;
      this.served.set(interpreter, served);
      if (this.closed) return result;
      if (ready !== null && served < RUNS_PER_PROCESS) this.prepared.push(ready);
      else {
        interpreter.kill();
        if (!replacedAhead) this.prepared.push(this.prepare());
      }
      return result;
    });
  }

  async runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]> {
    // Every request is checked before any runs, so a bad one fails the batch without side effects.
    resolveBatch(requests, this.options.limits);
    return Promise.all(requests.map((request) => this.run(request)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const exits = [...this.live].map((interpreter) => {
      interpreter.kill();
      return interpreter.whenExited();
    });
    await Promise.all(exits);
  }
}

/**
 * Starts the pyodide backend on interpreters from `startInterpreter`: one imports `files` (the packages' sources)
 * and the preloads and gives the memory snapshot every run's interpreter starts from; then `workers` interpreters
 * start from it, ahead of their runs. With `reuse` (Node's processes) each makes its interpreter ready for its next
 * run itself; without it (web workers) each serves one run, and its successor starts when that run begins.
 */
export async function startPyodidePool(
  options: PoolOptions,
  files: readonly SandboxFile[],
  runner: string,
  startInterpreter: () => Interpreter,
  reuse: boolean,
): Promise<PyodideSandbox> {
  const maker = startInterpreter();
  let snapshot: Snapshot;
  try {
    const { indexURL, preload, startupTimeoutMs } = options;
    maker.send({ type: 'make', files, preload, runner, indexURL });
    const made = await expectMessage(maker, 'snapshot', startupTimeoutMs, 'the pyodide snapshot');
    snapshot = { snapshot: made.snapshot, site: made.site, indexURL };
  } catch (error) {
    throw new Error(`@taorl/sandbox: ${(error as Error).message}`);
  } finally {
    maker.kill();
  }
  return new PyodidePool(snapshot, options, startInterpreter, reuse);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return joined;
}
