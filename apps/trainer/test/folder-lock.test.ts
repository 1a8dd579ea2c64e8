import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, lockFolder } from '../src/util/folder-lock.js';

// Issue 39 item 10 (the helper; test/run-lock.test.ts runs two real `taorl rl` into one folder).

const root = mkdtempSync(join(tmpdir(), 'taorl-folder-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A pid no process has now (counting down from the kernel's largest). */
function deadPid(): number {
  const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  for (let pid = max - 1; pid > 1; pid--) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid');
}

const holderFile = (dir: string, holder: Record<string, unknown>) =>
  writeFileSync(
    join(dir, LOCK_FILE),
    JSON.stringify({ host: hostname(), started: '2026-01-01T00:00:00.000Z', command: 'taorl rl', ...holder }),
  );

describe('lockFolder', () => {
  it('creates the folder and the lock, refuses a second holder naming the folder and the first, releases', () => {
    const dir = join(root, 'a', 'run');
    const first = lockFolder(dir, 'taorl rl', () => undefined);
    const holder = JSON.parse(readFileSync(first.path, 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), command: 'taorl rl' });
    const inUse = new RegExp(
      `^${dir} is in use by taorl rl \\(pid ${process.pid} on ${hostname()}, started .*\\): two runs`,
    );
    expect(() => lockFolder(dir, 'taorl sft', () => undefined)).toThrow(inUse);
    first.release();
    // The folders it created stay only with something in them.
    expect(existsSync(join(root, 'a'))).toBe(false);
    const again = lockFolder(dir, 'taorl sft', () => undefined);
    writeFileSync(join(dir, 'metrics.jsonl'), '');
    again.release();
    expect(readdirSync(dir)).toEqual(['metrics.jsonl']);
  });

  it('takes over the lock of a process that is gone, with a notice', () => {
    const dir = join(root, 'stale');
    mkdirSync(dir, { recursive: true });
    const pid = deadPid();
    holderFile(dir, { pid, processStart: null });
    const notices: string[] = [];
    const lock = lockFolder(dir, 'taorl rl', (notice) => notices.push(notice));
    expect(notices).toEqual([
      expect.stringMatching(new RegExp(`took over the lock of taorl rl \\(pid ${pid} `)),
    ]);
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to a later process, and keeps one held on another host', () => {
    const dir = join(root, 'reused');
    mkdirSync(dir, { recursive: true });
    // This process's pid, another start time: the crashed holder's pid was given to this process.
    holderFile(dir, { pid: process.pid, processStart: '1' });
    const notices: string[] = [];
    lockFolder(dir, 'taorl rl', (notice) => notices.push(notice)).release();
    expect(notices).toHaveLength(1);
    holderFile(dir, { pid: deadPid(), host: 'elsewhere', processStart: null });
    expect(() => lockFolder(dir, 'taorl rl', () => undefined)).toThrow(
      /is in use by taorl rl \(pid \d+ on elsewhere/,
    );
  });

  it('is released when the process exits', () => {
    const dir = join(root, 'exit');
    const before = process.listeners('exit').length;
    const lock = lockFolder(dir, 'taorl rl', () => undefined);
    const added = process.listeners('exit').slice(before);
    expect(added).toHaveLength(1);
    (added[0] as () => void)();
    expect(existsSync(lock.path)).toBe(false);
    expect(process.listeners('exit')).toHaveLength(before);
  });
});
