import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRoot, processesGone } from './helpers';

// The pool as an unprivileged user (uid 65534 through setpriv): bubblewrap with a user namespace, no uid per
// seat, a pid namespace per run. Needs root to switch users, and setpriv.
const root = resolve(import.meta.dirname, '../../..');
const NOBODY = 65534;
const canSwitch = isRoot && existsSync('/usr/bin/setpriv');

describe.skipIf(!canSwitch)('without root', () => {
  it('contains and classifies hostile code; the code cannot reach its worker', async () => {
    const run = spawnSync(
      '/usr/bin/setpriv',
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        '--clear-groups',
        join(root, 'node_modules/.bin/tsx'),
        resolve(import.meta.dirname, 'fixtures/unprivileged-run.mts'),
      ],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, HOME: '/tmp' } },
    );
    expect(run.stderr).not.toMatch(/Error/);
    const results = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
    // In its own pid namespace the code's parent is that namespace's init (pid 1), never the worker.
    expect(results.identity).toMatchObject({ status: 'ok', stdout: '1 True\n' });
    expect(results.killParent).toMatchObject({ status: 'ok', stdout: 'still here\n' });
    expect(results.interruptInit).toMatchObject({ status: 'ok', stdout: 'init ignores\n' });
    expect(results.segfault).toMatchObject({ status: 'killed', signal: 'SIGSEGV' });
    expect(results.loop).toMatchObject({ status: 'timeout', signal: 'SIGKILL' });
    expect(results.cpu).toMatchObject({ status: 'timeout', signal: 'SIGXCPU' });
    expect(results.memory.status).toBe('memory');
    expect(results.escapee).toMatchObject({ status: 'ok', stdout: 'parent done\n' });
    expect(results.selfTerminate).toMatchObject({ status: 'killed', signal: 'SIGTERM' });
    expect(results.exitThree.status).toBe('error');
    expect(results.leftFile).toMatchObject({ status: 'ok', stdout: '[]\n' });
    expect(results.forgeStatus).toMatchObject({ status: 'ok', stdout: 'forged\n' });
    expect(results.ignoreCpuLimit).toMatchObject({ status: 'timeout', signal: 'SIGKILL' });
    expect(results.realTimeSignal).toMatchObject({ status: 'killed', signal: 'SIGRTMIN+6' });
    expect(results.userNamespace).toMatchObject({ status: 'ok', stdout: '-1 1\n' });
    // A script run's semantics hold without root too: multiprocessing, and a /tmp of the run's own, fresh each run.
    expect(results.scriptRun).toMatchObject({ status: 'ok', stdout: "[4, 9] ['t']\n" });
    expect(results.freshTmp).toMatchObject({ status: 'ok', stdout: "[] ['.root']\n" });
    expect(results.after).toMatchObject({ status: 'ok', stdout: 'alive\n' });
    expect(await processesGone(NOBODY, 1)).toEqual([]);
  });
});
