import { existsSync, statfsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ExecResult, type LocalSandbox } from '../src/index';
import {
  descendantsNamed,
  isRoot,
  parentPid,
  privateUidBase,
  processExited,
  processesGone,
  processesOfUids,
  processStarted,
} from './helpers';
import { HOSTILE_CODE } from './hostile-code';

// Hostile snippets from the issue's list, each against the real bubblewrap pool. After every test: no process of
// the pool's uids is left on the host, and the pool still serves a plain run.
const WORKERS = 2;
const uidBase = privateUidBase();
const maxOutputBytes = 64 * 1024;
let sandbox: LocalSandbox;
let server: Server;
let serverPort = 0;
let connectionsSeen = 0;

beforeAll(async () => {
  sandbox = await createSandbox({ workers: WORKERS, uidBase, limits: { timeoutMs: 5000, maxOutputBytes } });
  server = createServer((socket) => {
    connectionsSeen++;
    socket.end('host secret\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverPort = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await sandbox?.close();
  server?.close();
});
afterEach(async () => {
  if (isRoot) expect(processesOfUids(uidBase, WORKERS)).toEqual([]);
  const alive = await sandbox.run({ code: 'print("alive")' });
  expect(alive).toMatchObject({ status: 'ok', stdout: 'alive\n' });
});

const lastLine = (result: ExecResult) => result.stderr.trimEnd().split('\n').at(-1) ?? '';

describe.skipIf(!isRoot)('security: hostile code is contained and classified', () => {
  it('fork bomb: the process limit stops it, the fork fails in the code (error)', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.forkBomb });
    expect(result.status).toBe('error');
    expect(result.stderr).toMatch(/BlockingIOError: \[Errno 11\] Resource temporarily unavailable/);
  });

  it('10 GB allocation: memory', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.allocate10Gb });
    expect(result.status).toBe('memory');
    expect(result.stdout).toBe('');
    expect(lastLine(result)).toBe('MemoryError');
  });

  it('numpy allocation past the limit: memory', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.numpyPastLimit });
    expect(result.status).toBe('memory');
    expect(lastLine(result)).toMatch(/MemoryError: Unable to allocate/);
  });

  it('infinite loop: timeout at the wall-clock limit, killed', async () => {
    const result = await sandbox.run({
      code: HOSTILE_CODE.infiniteLoop,
      timeoutMs: 1000,
      // The CPU limit defaults to the wall-clock one, and a busy loop reaches both at about the same moment: set it
      // higher so the wall clock is what ends this run (the next test covers SIGXCPU).
      cpuTimeMs: 5000,
    });
    expect(result).toMatchObject({ status: 'timeout', signal: 'SIGKILL', exitCode: null, stdout: 'start\n' });
  });

  it('CPU-time limit: SIGXCPU is a timeout', async () => {
    const result = await sandbox.run({ code: 'while True:\n    pass', timeoutMs: 5000, cpuTimeMs: 1000 });
    expect(result).toMatchObject({ status: 'timeout', signal: 'SIGXCPU' });
  });

  it('busy loop in a child process the code waits for: timeout, child killed', async () => {
    const result = await sandbox.run({
      code: HOSTILE_CODE.busyChild,
      timeoutMs: 1000,
    });
    expect(result.status).toBe('timeout');
  });

  it('setsid() escapee left running after the code ends: ok, and the escapee is killed', async () => {
    const result = await sandbox.run({
      code: [
        'import os, time',
        'if os.fork() == 0:',
        '    os.setsid()',
        '    if os.fork() == 0:',
        '        time.sleep(600)',
        '    os._exit(0)',
        'print("parent done")',
      ].join('\n'),
    });
    expect(result).toMatchObject({ status: 'ok', stdout: 'parent done\n' });
  });

  it("writing outside the scratch directory fails (read-only root); /tmp is the run's own, not the host's", async () => {
    const marker = `/tmp/taorl-escape-${uidBase}`;
    const result = await sandbox.run({
      code: [
        'import os',
        `for path in ["/usr/escape", "/etc/escape", "/escape", "${marker}"]:`,
        '    try:',
        '        open(path, "w").write("x")',
        '        print("WROTE", path)',
        '    except OSError as e:',
        '        print(path, e.errno)',
        'open("/etc/hostname", "a").write("x")',
      ].join('\n'),
    });
    expect(result.status).toBe('error');
    expect(result.stdout).toBe(`/usr/escape 30\n/etc/escape 30\n/escape 30\nWROTE ${marker}\n`);
    expect(lastLine(result)).toMatch(/OSError: \[Errno 30\] Read-only file system|PermissionError/);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync('/usr/escape')).toBe(false);
  });

  it('reading /etc/shadow fails', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.readShadow });
    expect(result.status).toBe('error');
    expect(lastLine(result)).toMatch(/PermissionError/);
    expect(result.stdout).toBe('');
  });

  it('a run cannot see the files of a concurrent run', async () => {
    const secret = `secret-${Math.random()}`;
    const order: string[] = [];
    const writer = sandbox
      .run({
        code: `import time\nopen("mine.txt", "w").write("${secret}")\ntime.sleep(3)\nprint(open("mine.txt").read())`,
      })
      .then((result) => {
        order.push('writer');
        return result;
      });
    // The writer runs under one of the pool's uids; once it exists, the reader starts on the other worker.
    expect(await processStarted(uidBase, WORKERS)).toBe(true);
    const reader = await sandbox.run({
      code: [
        'import glob, os',
        'found = []',
        'for pattern in ["/scratch/*", "/proc/*/root/scratch/*", "/proc/*/cwd/*", "/tmp/*"]:',
        '    found += glob.glob(pattern)',
        'print(sorted(found))',
        'print(sorted(p for p in os.listdir("/proc") if p.isdigit()))',
      ].join('\n'),
    });
    order.push('reader');
    expect(reader.status).toBe('ok');
    expect(reader.stdout).not.toContain('mine.txt');
    // Only bwrap's init, the worker, its zygote, the child prepared for the next request, and this run exist in its
    // pid namespace.
    const pids = JSON.parse(reader.stdout.split('\n')[1]?.replace(/'/g, '"') ?? '[]') as string[];
    expect(pids.length).toBeLessThanOrEqual(6);
    expect((await writer).stdout).toBe(`${secret}\n`);
    // The reader looked while the writer's file existed.
    expect(order).toEqual(['reader', 'writer']);
  });

  it('a file or a SysV shared-memory segment left behind is gone for the next run', async () => {
    const single = await createSandbox({ workers: 1, uidBase: uidBase + 32 });
    const shm = 'import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n';
    try {
      const first = await single.run({
        code: `${shm}import os\nos.makedirs("d/e")\nopen("d/e/left.txt", "w").write("x")\nopen("top.txt", "w").write("y")\nos.chmod("d", 0)\nprint(sorted(os.listdir(".")), libc.shmget(4242, 4096, 0o1000 | 0o600) >= 0)`,
      });
      expect(first).toMatchObject({ status: 'ok', stdout: "['d', 'top.txt'] True\n" });
      const second = await single.run({
        code: `${shm}import os\nprint(os.listdir("."), libc.shmget(4242, 0, 0), ctypes.get_errno())`,
      });
      // shmget of the old key fails with ENOENT (2): the segment was removed with the run.
      expect(second).toMatchObject({ status: 'ok', stdout: '[] -1 2\n' });
    } finally {
      await single.close();
    }
  });

  it('a socket to a server on the host loopback fails', async () => {
    const before = connectionsSeen;
    const result = await sandbox.run({
      code: `import socket\ns = socket.create_connection(("127.0.0.1", ${serverPort}), timeout=2)\nprint(s.recv(100))`,
    });
    expect(result.status).toBe('error');
    expect(lastLine(result)).toMatch(/ConnectionRefusedError/);
    expect(connectionsSeen).toBe(before);
  });

  it('a socket to an outside address fails: no network', async () => {
    const result = await sandbox.run({
      code: HOSTILE_CODE.outsideSocket,
    });
    expect(result.status).toBe('error');
    expect(lastLine(result)).toMatch(/OSError: \[Errno 101\] Network is unreachable/);
  });

  it('printing 100 MB: output_limit, stdout capped and flagged', async () => {
    const result = await sandbox.run({
      code: HOSTILE_CODE.print100Mb,
    });
    expect(result.status).toBe('output_limit');
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout.length).toBe(maxOutputBytes);
    expect(result.stderrTruncated).toBe(false);
  });

  it('writing a 1 GB file fails at the file-size limit (error) and leaves the host disk alone', async () => {
    const freeBefore = statfsSync('/').bavail;
    const result = await sandbox.run({
      code: HOSTILE_CODE.write1GbFile,
    });
    expect(result.status).toBe('error');
    expect(lastLine(result)).toMatch(/OSError: \[Errno 27\] File too large/);
    const freeAfter = statfsSync('/').bavail;
    expect(Math.abs(freeAfter - freeBefore) * statfsSync('/').bsize).toBeLessThan(512 * 1024 ** 2);
  });

  it('opening more files than the limit fails (error, EMFILE)', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.openManyFiles });
    expect(result.status).toBe('error');
    expect(lastLine(result)).toMatch(/OSError: \[Errno 24\] Too many open files/);
  });

  it('killing the parent (the worker) or init is refused', async () => {
    const result = await sandbox.run({
      code: HOSTILE_CODE.killParent,
    });
    expect(result.status).toBe('error');
    expect(result.stdout).toMatch(/^\d+ 1\n1 1\n$/);
    expect(lastLine(result)).toMatch(/PermissionError/);
  });

  it('crashing the interpreter through ctypes: killed by SIGSEGV, blamed on the code', async () => {
    const result = await sandbox.run({ code: HOSTILE_CODE.ctypesSegfault });
    expect(result).toMatchObject({ status: 'killed', signal: 'SIGSEGV', exitCode: null });
  });

  it('the code runs without capabilities, as an unprivileged uid, with no new privileges', async () => {
    const result = await sandbox.run({
      code: 'import os\ns = open("/proc/self/status").read()\nprint(os.getuid() != 0, "CapEff:\\t0000000000000000" in s, "NoNewPrivs:\\t1" in s)',
    });
    expect(result).toMatchObject({ status: 'ok', stdout: 'True True True\n' });
  });
});

describe.skipIf(!isRoot)('a crashed or hung worker', () => {
  it('a worker that stops answering is killed by the watchdog: sandbox_error, then a fresh worker serves', async () => {
    const single = await createSandbox({ workers: 1, uidBase: uidBase + 40, watchdogGraceMs: 500 });
    try {
      const [bwrap] = single.workerPids();
      // The worker, its zygote, and the two children the zygote keeps prepared ahead of the requests.
      let pythons = descendantsNamed(bwrap as number, 'python3');
      for (let tries = 0; pythons.length < 4 && tries < 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        pythons = descendantsNamed(bwrap as number, 'python3');
      }
      expect(pythons.length).toBe(4);
      for (const pid of pythons) process.kill(pid, 'SIGSTOP');
      const hung = await single.run({ code: 'print("never answered")', timeoutMs: 500 });
      expect(hung.status).toBe('sandbox_error');
      expect(hung.sandboxMessage).toMatch(/did not answer within 1000 ms/);
      expect(await single.run({ code: 'print("fresh")' })).toMatchObject({ status: 'ok', stdout: 'fresh\n' });
      for (const pid of pythons) expect(await processExited(pid)).toBe(true);
    } finally {
      await single.close();
    }
  });

  it('children forked ahead that end while they wait (the OOM killer may take them) are replaced: the next runs are ok', async () => {
    const single = await createSandbox({ workers: 1, uidBase: uidBase + 48 });
    try {
      expect(await single.run({ code: 'print("warm")' })).toMatchObject({ status: 'ok' });
      const [bwrap] = single.workerPids();
      let waiting: number[] = [];
      for (let tries = 0; waiting.length < 2 && tries < 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        const pythons = descendantsNamed(bwrap as number, 'python3');
        const worker = pythons.find((pid) => !pythons.includes(parentPid(pid)));
        const zygote = pythons.find((pid) => parentPid(pid) === worker);
        waiting = pythons.filter((pid) => parentPid(pid) === zygote);
      }
      expect(waiting).toHaveLength(2);
      for (const pid of waiting) process.kill(pid, 'SIGKILL');
      for (const pid of waiting) expect(await processExited(pid)).toBe(true);
      expect(await single.run({ code: 'print("first")' })).toMatchObject({ status: 'ok', stdout: 'first\n' });
      expect(await single.run({ code: 'print("second")' })).toMatchObject({
        status: 'ok',
        stdout: 'second\n',
      });
    } finally {
      await single.close();
    }
  });

  it('a zygote that dies: the run it would reap gets sandbox_error, then a fresh worker serves', async () => {
    const single = await createSandbox({ workers: 1, uidBase: uidBase + 44 });
    try {
      expect(await single.run({ code: 'print("warm")' })).toMatchObject({ status: 'ok' });
      const [bwrap] = single.workerPids();
      const pythons = descendantsNamed(bwrap as number, 'python3');
      const worker = pythons.find((pid) => !pythons.includes(parentPid(pid)));
      const zygote = pythons.find((pid) => parentPid(pid) === worker);
      expect(zygote).toBeDefined();
      process.kill(zygote as number, 'SIGKILL');
      expect(await processExited(zygote as number)).toBe(true);
      const orphaned = await single.run({ code: 'print("ran")' });
      expect(orphaned.status).toBe('sandbox_error');
      expect(orphaned.sandboxMessage).toMatch(
        /the zygote \(the process the runs' children are forked from\) ended/,
      );
      expect(await single.run({ code: 'print("fresh")' })).toMatchObject({ status: 'ok', stdout: 'fresh\n' });
      expect(await processExited(worker as number)).toBe(true);
    } finally {
      await single.close();
    }
  });

  it('gives sandbox_error, never blamed on the code, and the pool replaces the worker', async () => {
    const pids = sandbox.workerPids();
    expect(pids.length).toBe(WORKERS);
    const running = sandbox.runMany([
      { code: 'import time\ntime.sleep(3)\nprint("slow")' },
      { code: 'import time\ntime.sleep(3)\nprint("slow")' },
    ]);
    expect(await processStarted(uidBase, WORKERS)).toBe(true);
    process.kill(pids[0] as number, 'SIGKILL');
    const results = await running;
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual(['ok', 'sandbox_error']);
    const failed = results.find((result) => result.status === 'sandbox_error');
    expect(failed?.sandboxMessage).toMatch(/worker exited/);
    expect(failed?.exitCode).toBeNull();
    const after = await sandbox.runMany([{ code: 'print(1)' }, { code: 'print(2)' }]);
    expect(after.map((result) => result.status)).toEqual(['ok', 'ok']);
    // The killed worker's pid namespace dies with it (asynchronously): its run's process goes too.
    expect(await processesGone(uidBase, WORKERS)).toEqual([]);
  });
});
