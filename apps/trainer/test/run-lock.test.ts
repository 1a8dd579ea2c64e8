import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { define } from '../src/cli/command-spec.js';
import { ConfigError } from '../src/config/config-error.js';
import { readMetrics } from '../src/index.js';
import { LOCK_FILE, lockFolder } from '../src/util/folder-lock.js';
import { capture } from './support/capture-io.js';
import { tinyRunOverrides } from './support/tiny-run.js';

// Issue 39 items 10 and 11: two writers into one run folder, and `taorl ablate` ended by a signal.

const cli = new URL('../src/cli.ts', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'taorl-run-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function taorl(args: readonly string[]): Run {
  const child = spawn(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', cli, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ended = new Promise<Awaited<Run['ended']>>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, ended };
}

async function until(condition: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every process now running below `pid` (children, their children, ...), zombies left out. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') parents.set(Number(entry), Number(ppid));
    } catch {
      // Ended while listed.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** Whether `pid` still runs (a zombie waiting for its parent to reap it has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const sets = (overrides: readonly string[]) => overrides.flatMap((o) => ['--set', o]);

describe('run folder lock', () => {
  // Issue 46 finding 8: the check of what the folder holds came before the lock, so a second run could see the
  // first's metrics ("holds a run", exit 2) instead of its lock ("in use", exit 1).
  it('checks what the run folder holds only while holding its lock', async () => {
    const out = join(root, 'under-lock');
    const holders: (number | null)[] = [];
    const command = define({
      name: 'probe',
      summary: 'records who holds the folder when its flags are checked',
      flags: {},
      checkFlags(_flags, config) {
        const lock = join(config.outDir, LOCK_FILE);
        holders.push(existsSync(lock) ? JSON.parse(readFileSync(lock, 'utf8')).pid : null);
        throw new ConfigError('probe', 'outDir', 'stops here');
      },
      run: () => Promise.reject(new Error('never reached')),
    });
    await expect(command.run(['--out', out], capture().io)).rejects.toThrow('stops here');
    expect(holders).toEqual([process.pid]);
    // The lock is released and the folder it created removed: a refused command leaves no trace.
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a second `taorl rl` into the folder of one started just before; the first completes', async () => {
    const out = join(root, 'rl');
    const args = ['rl', '--out', out, ...sets(tinyRunOverrides)];
    const first = taorl(args);
    await until(() => existsSync(join(out, LOCK_FILE)), 'the first run to take its lock');
    // Held still while the second runs: a first run that ended meanwhile would leave a finished run (exit 2).
    first.child.kill('SIGSTOP');
    const second = await taorl(args).ended;
    first.child.kill('SIGCONT');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`taorl rl: ${out} is in use by taorl rl (pid ${first.child.pid} on `);
    const done = await first.ended;
    expect(done.code).toBe(0);
    expect(done.stderr).not.toMatch(/in use|warning|error/i);
    // One run's steps, once each; the lock is gone with it.
    expect(readMetrics(join(out, 'metrics.jsonl')).map((line) => `${line.phase} ${line.step}`)).toEqual([
      'rl 1',
      'rl 2',
    ]);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  }, 240_000);
});

describe('taorl ablate and its children', () => {
  it('SIGTERM ends every child and grandchild; meanwhile a second ablation into the folder is refused', async () => {
    const out = join(root, 'ablate');
    const args = [
      'ablate',
      '--out',
      out,
      '--seeds',
      '1',
      '--variants',
      'grpo',
      '--parallel',
      '1',
      ...sets([...tinyRunOverrides, 'sft.steps=200']),
    ];
    const first = taorl(args);
    // The SFT child has started and holds its own folder.
    await until(() => existsSync(join(out, 'sft', LOCK_FILE)), 'the SFT child to take its lock');
    const second = await taorl(args).ended;
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `taorl ablate: ${out} is in use by taorl ablate (pid ${first.child.pid} on `,
    );

    const below = descendants(first.child.pid!);
    expect(below.length).toBeGreaterThanOrEqual(1);
    first.child.kill('SIGTERM');
    const ended = await first.ended;
    expect(ended.code).toBe(128 + 15);
    await until(() => below.every((pid) => !running(pid)), 'the children to end', 15_000);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    expect(existsSync(join(out, 'sft', 'done.json'))).toBe(false);
    // The child ended by the forwarded signal released its lock too (issue 46 finding 3).
    expect(existsSync(join(out, 'sft', LOCK_FILE))).toBe(false);
  }, 240_000);
});

describe('a run ended by a signal', () => {
  // Issue 46 finding 3: Node ends a process on SIGTERM without its 'exit' handlers, which left the lock behind.
  it('releases its lock and still ends by the signal; a lock of a process gone is taken over', async () => {
    const out = join(root, 'signalled');
    const run = taorl(['rl', '--out', out, ...sets(tinyRunOverrides)]);
    await until(() => existsSync(join(out, LOCK_FILE)), 'the run to take its lock');
    run.child.kill('SIGTERM');
    const ended = await run.ended;
    expect(ended.signal).toBe('SIGTERM');
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);

    // kill -9 cannot be caught: that lock stays, and the next writer sees its holder is gone.
    const killed = taorl(['rl', '--out', out, '--overwrite', ...sets(tinyRunOverrides)]);
    await until(() => existsSync(join(out, LOCK_FILE)), 'the second run to take its lock');
    killed.child.kill('SIGKILL');
    await killed.ended;
    expect(existsSync(join(out, LOCK_FILE))).toBe(true);
    const notices: string[] = [];
    lockFolder(out, 'taorl rl', (notice) => notices.push(notice)).release();
    expect(notices.join('')).toMatch(/which is no longer running/);
  }, 240_000);
});
