import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { TiedChildren } from '../../util/tied-children.js';

/** How to start the taorl CLI in a child process: the executable and the arguments before the command. */
export interface CliLauncher {
  command: string;
  args: readonly string[];
}

/** The CLI this process runs (dist or sources through tsx), so children run the same code. */
export function currentCliLauncher(): CliLauncher {
  const entry = process.argv[1];
  if (entry === undefined) throw new Error('cannot locate the taorl CLI entry (process.argv[1] is empty)');
  return { command: process.execPath, args: [...process.execArgv, entry] };
}

/** One child run: the CLI arguments and the folder that holds its log and completion marker. */
export interface QueuedRun {
  label: string;
  dir: string;
  cliArgs: readonly string[];
}

export interface RunOutcome {
  run: QueuedRun;
  /** Already complete from an earlier invocation. */
  skipped: boolean;
  ok: boolean;
  seconds: number;
  logPath: string;
}

const DONE = 'done.json';

/** True when `dir` holds a completion marker, so an interrupted ablation resumes without redoing it. */
export const runIsDone = (dir: string): boolean => existsSync(join(dir, DONE));

/** Runs one queued CLI invocation, its output in <dir>/log.txt; resolves with its outcome (never rejects). */
function runOne(run: QueuedRun, cli: CliLauncher, children: TiedChildren): Promise<RunOutcome> {
  mkdirSync(run.dir, { recursive: true });
  const logPath = join(run.dir, 'log.txt');
  const log = createWriteStream(logPath);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = children.spawn(cli.command, [...cli.args, ...run.cliArgs]);
    child.stdin.end();
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const finish = (ok: boolean, note?: string) => {
      if (note !== undefined) log.write(`\n${note}\n`);
      log.end();
      const seconds = (performance.now() - started) / 1000;
      if (ok) writeFileAtomic(join(run.dir, DONE), `${JSON.stringify({ seconds, args: run.cliArgs })}\n`);
      resolve({ run, skipped: false, ok, seconds, logPath });
    };
    child.on('error', (error) => finish(false, `failed to start: ${error.message}`));
    child.on('exit', (code, signal) =>
      finish(code === 0, code === 0 ? undefined : `exited with ${signal ?? code}`),
    );
  });
}

/**
 * Runs the queue with at most `parallel` children at once (each child has its own single-threaded wasm backend,
 * so one child per core uses the machine fully). Completed runs are skipped; a failed run does not stop the
 * others, and every outcome is returned so the caller can name the failures. The children end with this process
 * (`TiedChildren`): a SIGTERM or SIGINT ends them, starts no further run, and ends this process.
 */
export async function runQueue(
  runs: readonly QueuedRun[],
  options: { parallel: number; cli: CliLauncher; onOutcome?: (outcome: RunOutcome) => void },
): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = new Array(runs.length);
  const children = new TiedChildren();
  let next = 0;
  const worker = async () => {
    while (next < runs.length && !children.ending) {
      const index = next++;
      const run = runs[index]!;
      const outcome: RunOutcome = runIsDone(run.dir)
        ? {
            run,
            skipped: true,
            ok: true,
            seconds: (JSON.parse(readFileSync(join(run.dir, DONE), 'utf8')) as { seconds: number }).seconds,
            logPath: join(run.dir, 'log.txt'),
          }
        : await runOne(run, options.cli, children);
      outcomes[index] = outcome;
      options.onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel) }, worker));
  return outcomes;
}
