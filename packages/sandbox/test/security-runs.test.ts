import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkSandboxOptions, createSandbox, type ExecRequest, type LocalSandbox } from '../src/index';
import { findMemoryHierarchy } from '../src/local/memory-cgroup';
import { isRoot, privateUidBase, processesOfUids } from './helpers';

// Hostile code against the run boundary: what one run leaves must be out of reach of the next, the code must not
// be able to choose its own status, and nothing it does may cost a worker restart. Each case runs on the real
// bubblewrap pool; after each, no process of the pool's uids is left and the same workers serve a plain run.
const WORKERS = 2;
const uidBase = privateUidBase();
let sandbox: LocalSandbox;
let workersBefore: number[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ workers: WORKERS, uidBase, limits: { timeoutMs: 5000 } });
});
afterAll(async () => {
  await sandbox?.close();
});
afterEach(async () => {
  if (isRoot) expect(processesOfUids(uidBase, WORKERS)).toEqual([]);
  const alive = await sandbox.runMany([{ code: 'print("alive")' }, { code: 'print("alive")' }]);
  expect(alive.map((result) => result.stdout)).toEqual(['alive\n', 'alive\n']);
  // The same worker processes: nothing in the test cost a worker restart.
  if (workersBefore.length > 0) expect(sandbox.workerPids().sort()).toEqual(workersBefore);
  workersBefore = [];
});
const rememberWorkers = () => {
  workersBefore = sandbox.workerPids().sort();
};

/**
 * Python that reads every readable mapping of its own process (the memory it was forked with) and prints, as a
 * sorted list of hex strings, the 16 bytes that follow each occurrence of `key`. A run that knows only the key
 * can show whatever an earlier run left after it in memory.
 */
function memoryScan(key: string): string {
  return [
    'import ctypes',
    'ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: /proc/self/mem becomes readable to this uid',
    `key = bytes.fromhex("${Buffer.from(key).toString('hex')}")`,
    'found = set()',
    'with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as mem:',
    '    for line in maps.read().splitlines():',
    '        fields = line.split()',
    '        if "r" not in fields[1] or fields[-1] in ("[vvar]", "[vsyscall]"):',
    '            continue',
    '        start, end = (int(part, 16) for part in fields[0].split("-"))',
    '        try:',
    '            mem.seek(start)',
    '            data = mem.read(end - start)',
    '        except OSError:',
    '            continue',
    '        at = data.find(key)',
    '        while at >= 0:',
    '            found.add(data[at + len(key):at + len(key) + 16].hex())',
    '            at = data.find(key, at + 1)',
    'print(sorted(found))',
  ].join('\n');
}

describe.skipIf(!isRoot)('security: nothing of an earlier run is reachable from a later one', () => {
  it("a run finds none of an earlier run's code, stdin, files or output in its memory, on any worker", async () => {
    const key = `taorl-probe-${randomBytes(6).toString('hex')}:`;
    const secret = () => randomBytes(8).toString('hex');
    const earlier = Array.from({ length: 2 * WORKERS }, () => ({
      code: secret(),
      stdin: secret(),
      file: secret(),
      out: secret(),
    }));
    const results = await sandbox.runMany(
      earlier.map(
        (run): ExecRequest => ({
          // The output secret appears in the code only reversed, so finding it means finding the output.
          code: `import sys\nsecret = "${key}code:${run.code}"\nsys.stdin.read()\nopen("f.txt").read()\nprint("${key}out:" + "${[...run.out].reverse().join('')}"[::-1])`,
          stdin: `${key}in:${run.stdin}`,
          files: [{ path: 'f.txt', content: `${key}file:${run.file}` }],
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(earlier.map(() => 'ok'));
    // One scan per worker, at once, so each worker serves one.
    const scans = await sandbox.runMany([{ code: memoryScan(key) }, { code: memoryScan(key) }]);
    for (const scan of scans) {
      expect(scan.status).toBe('ok');
      const found = JSON.parse(scan.stdout.replace(/'/g, '"')) as string[];
      // The scan finds the key itself (its own copy of it), so it does read the memory.
      expect(found.length).toBeGreaterThan(0);
      const text = found.map((hex) => Buffer.from(hex, 'hex').toString('latin1')).join('\n');
      for (const run of earlier) {
        for (const value of [run.code, run.stdin, run.file, run.out])
          expect(text).not.toContain(value.slice(0, 8));
      }
    }
  });

  it('the worker holds no request or reply a run could read through Python', async () => {
    await sandbox.run({ code: 'print("earlier output")', stdin: 'earlier stdin' });
    const result = await sandbox.run({
      code: [
        'import gc, sys',
        'print([name for name in ("reply", "req", "line") if name in vars(sys.modules["__main__"])])',
        'values = (v for o in gc.get_objects() if isinstance(o, dict) for v in list(o.values()) if isinstance(v, str))',
        'print(sum(v in ("earlier output\\n", "earlier stdin") for v in values))',
      ].join('\n'),
    });
    expect(result).toMatchObject({ status: 'ok', stdout: '[]\n0\n' });
  });
});

describe.skipIf(!isRoot)('security: the code cannot choose its own status', () => {
  it('writing to the status channel or to any descriptor it can find does not change the status', async () => {
    const result = await sandbox.run({
      code: [
        'import glob, os',
        'written = 0',
        'for fd in range(3, 64):',
        '    for mark in (b"S", b"M", b"R"):',
        '        try:',
        '            os.write(fd, mark)',
        '            written += 1',
        '        except OSError:',
        '            pass',
        'for path in glob.glob("/proc/*/fd/*"):',
        '    try:',
        '        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)',
        '        os.write(fd, b"S\\n{}\\n")',
        '        written += 1',
        '    except OSError:',
        '        pass',
        'print("wrote", written)',
      ].join('\n'),
    });
    expect(result.status).toBe('ok');
    expect(result.stdout).toMatch(/^wrote \d+\n$/);
  });

  it('memory is an uncaught MemoryError: printing one and exiting 0 is ok, exiting 1 is what raising gives', async () => {
    const [printed, raised] = await sandbox.runMany([
      { code: 'import sys\nprint("MemoryError", file=sys.stderr)' },
      { code: 'raise MemoryError' },
    ]);
    expect(printed?.status).toBe('ok');
    expect(raised?.status).toBe('memory');
  });

  it('memory when the code ended in a MemoryError and the clock ran out while it was ending', async () => {
    // A memory bomb on a busy machine: the MemoryError traceback is out, the process is still tearing down.
    const ending =
      'import sys, time\nprint("Traceback (most recent call last):\\nMemoryError", file=sys.stderr)';
    const [stalled, slow] = await sandbox.runMany([
      { code: `${ending}\nsys.stderr.flush()\ntime.sleep(5)`, timeoutMs: 1000 },
      { code: 'import time\ntime.sleep(5)', timeoutMs: 1000 },
    ]);
    expect(stalled?.status).toBe('memory');
    expect(slow?.status).toBe('timeout');
  });
});

describe.skipIf(!isRoot)('security: code that used to crash the worker gets its own status', () => {
  it('a real-time signal sent to itself: killed, named as Node names it', async () => {
    rememberWorkers();
    const results = await sandbox.runMany(
      [35, 40, 63].map((number) => ({ code: `import os\nos.kill(os.getpid(), ${number})` })),
    );
    expect(results.map((result) => [result.status, result.signal])).toEqual([
      ['killed', 'SIGRTMIN+1'],
      ['killed', 'SIGRTMIN+6'],
      ['killed', 'SIGRTMIN+29'],
    ]);
  });

  it('a directory tree 3000 levels deep (and locked) in scratch: ok, and the next run finds scratch empty', async () => {
    rememberWorkers();
    const single = await createSandbox({ workers: 1, uidBase: uidBase + 32 });
    try {
      const [worker] = single.workerPids();
      const deep = await single.run({
        code: 'import os\nfor _ in range(3000):\n    os.mkdir("d")\n    os.chdir("d")\nopen("leaf", "w").write("x")\nos.chdir("/scratch/d/d")\nos.chmod(".", 0)\nprint("deep")',
      });
      expect(deep).toMatchObject({ status: 'ok', stdout: 'deep\n' });
      const after = await single.run({ code: 'import os\nprint(os.listdir("."))' });
      expect(after).toMatchObject({ status: 'ok', stdout: '[]\n' });
      expect(single.workerPids()).toEqual([worker]);
    } finally {
      await single.close();
    }
  });

  it('a lone surrogate in stdin: ok, read as U+FFFD (as file contents are encoded)', async () => {
    rememberWorkers();
    const result = await sandbox.run({
      code: 'import sys\nprint(sys.stdin.buffer.read())',
      stdin: 'a\ud800b\n',
    });
    expect(result).toMatchObject({ status: 'ok', stdout: "b'a\\xef\\xbf\\xbdb\\n'\n" });
  });

  it('code that ignores SIGXCPU is killed at the hard CPU limit: timeout, not killed', async () => {
    rememberWorkers();
    const result = await sandbox.run({
      code: 'import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass',
      cpuTimeMs: 1000,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ status: 'timeout', signal: 'SIGKILL' });
  });

  it("a request's files that do not fit the scratch space give sandbox_error for that call only", async () => {
    const small = await createSandbox({ workers: 1, uidBase: uidBase + 40, scratchMb: 1, preload: [] });
    try {
      const result = await small.run({
        code: 'print(1)',
        files: [{ path: 'big.bin', content: 'x'.repeat(2 << 20) }],
      });
      expect(result.status).toBe('sandbox_error');
      expect(result.sandboxMessage).toMatch(/cannot write the request's files: .*No space left on device/);
      expect((await small.run({ code: 'print(1)' })).stdout).toBe('1\n');
    } finally {
      await small.close();
    }
  });
});

describe('a malformed files path is the caller’s error, before any worker is used', () => {
  it.each([
    ['.', 'files[0].path'],
    ['a/', 'files[0].path'],
    ['a//b', 'files[0].path'],
    ['a/./b', 'files[0].path'],
    ['a\0b', 'files[0].path'],
  ])('%j', async (path, field) => {
    rememberWorkers();
    await expect(sandbox.run({ code: 'print(1)', files: [{ path, content: 'x' }] })).rejects.toThrow(
      new RegExp(`ExecRequest\\.${field.replace(/[[\].]/g, '\\$&')} must be`),
    );
  });

  it('a name past NAME_MAX', async () => {
    rememberWorkers();
    await expect(
      sandbox.run({ code: 'print(1)', files: [{ path: `${'n'.repeat(300)}.txt`, content: 'x' }] }),
    ).rejects.toThrow(/ExecRequest\.files\[0\]\.path is too long for the file system: .* 255 a name/);
  });

  it('a path that is also the directory of another file', async () => {
    await expect(
      sandbox.run({
        code: 'print(1)',
        files: [
          { path: 'a', content: 'x' },
          { path: 'a/b', content: 'y' },
        ],
      }),
    ).rejects.toThrow(/ExecRequest\.files\[1\]\.path "a\/b" needs "a" as a directory, which files\[0\] is/);
  });
});

describe.skipIf(!isRoot)('security: no user namespaces', () => {
  it('unshare(CLONE_NEWUSER) and clone with it fail; clone3 is refused so the C library falls back', async () => {
    const result = await sandbox.run({
      code: [
        'import ctypes, subprocess, threading',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'print(libc.unshare(0x10000000), ctypes.get_errno())',
        'print(libc.syscall(435, None, 0), ctypes.get_errno())',
        'done = []',
        'thread = threading.Thread(target=lambda: done.append(1))',
        'thread.start()',
        'thread.join()',
        'print(done, subprocess.run(["true"]).returncode)',
        'print(subprocess.run(["unshare", "--user", "true"], capture_output=True).returncode != 0)',
      ].join('\n'),
    });
    // EPERM (1) for CLONE_NEWUSER, ENOSYS (38) for clone3; threads and processes still start.
    expect(result).toMatchObject({ status: 'ok', stdout: '-1 1\n-1 38\n[1] 0\nTrue\n' });
  });
});

describe('misspelled options are errors that name the field', () => {
  it('createSandbox, its limits, a request', async () => {
    await expect(createSandbox({ wrkers: 4 } as never)).rejects.toThrow(
      /createSandbox: unknown option "wrkers" \(did you mean "workers"\?\)/,
    );
    await expect(createSandbox({ limits: { memoryMB: 64, timeoutMS: 100 } } as never)).rejects.toThrow(
      /createSandbox limits: unknown option "memoryMB" \(did you mean "memoryMb"\?\)/,
    );
    await expect(
      createSandbox({ backend: 'sandboxfusion', url: 'http://127.0.0.1:1', concurency: 2 } as never),
    ).rejects.toThrow(
      /createSandbox \(sandboxfusion\): unknown option "concurency" \(did you mean "concurrency"\?\)/,
    );
    await expect(sandbox.run({ code: 'print(1)', timeoutMS: 100 } as never)).rejects.toThrow(
      /ExecRequest: unknown option "timeoutMS" \(did you mean "timeoutMs"\?\)/,
    );
    expect(() => checkSandboxOptions({ backend: 'local', frobnicate: true })).toThrow(
      /createSandbox: unknown option "frobnicate"; known: backend, pythonPath/,
    );
  });
});

describe('numeric options out of their range are errors that name the field and the range', () => {
  it('createSandbox (local and sandboxfusion) and its limits', async () => {
    // 100000 workers started bubblewrap sandboxes without end.
    await expect(createSandbox({ workers: 100_000 })).rejects.toThrow(
      'createSandbox: workers must be an integer from 1 to 256, got 100000',
    );
    expect(() => checkSandboxOptions({ backend: 'local', workers: 0 })).toThrow(
      'createSandbox: workers must be an integer from 1 to 256, got 0',
    );
    // A timer past 2^31 - 1 ms fires at once.
    expect(() => checkSandboxOptions({ backend: 'local', startupTimeoutMs: 2 ** 31 })).toThrow(
      'createSandbox: startupTimeoutMs must be an integer from 1 to 2147483647, got 2147483648',
    );
    expect(() => checkSandboxOptions({ backend: 'local', limits: { timeoutMs: 1e12 } })).toThrow(
      'createSandbox limits: timeoutMs must be at most 2147483647, got 1000000000000',
    );
    expect(() => checkSandboxOptions({ backend: 'local', limits: { maxOutputBytes: 2 ** 30 } })).toThrow(
      'createSandbox limits: maxOutputBytes must be at most 268435456, got 1073741824',
    );
    expect(() =>
      checkSandboxOptions({ backend: 'sandboxfusion', url: 'http://127.0.0.1:1', concurrency: 100_000 }),
    ).toThrow('createSandbox (sandboxfusion): concurrency must be an integer from 1 to 4096, got 100000');
  });
});

describe.skipIf(!isRoot)("security: a run's memory is bounded as a whole", () => {
  it('6 processes of 200 MB under memoryMb 512: memory, and the run never held more than 512 MB', async (context) => {
    if (sandbox.runMemoryLimit === 'per process') {
      // Documented fallback: no cgroup here, memory is bounded per process only; the reason is stated.
      expect(sandbox.memoryLimitReason).toMatch(/\w/);
      context.skip();
    }
    rememberWorkers();
    const hierarchy = findMemoryHierarchy(
      readFileSync('/proc/self/cgroup', 'utf8'),
      readFileSync('/proc/self/mountinfo', 'utf8'),
    );
    if ('reason' in hierarchy) throw new Error(hierarchy.reason);
    const seats = readdirSync(hierarchy.directory)
      .filter((name) => name.startsWith(`taorl-sandbox-${process.pid}-`))
      .map((name) => join(hierarchy.directory, name));
    expect(seats.length).toBeGreaterThanOrEqual(WORKERS);
    const peak = hierarchy.version === 2 ? 'memory.peak' : 'memory.max_usage_in_bytes';
    const memoryMb = 512;
    // The status under test is memory, not time: a loaded machine must not turn it into a timeout.
    const timeoutMs = 30_000;
    const [alone, many] = await sandbox.runMany([
      // One process under the limit: untouched by the cgroup.
      { code: 'block = b"x" * (300 * 1024 * 1024)\nprint(len(block) >> 20)', memoryMb, timeoutMs },
      {
        code: [
          'import os, sys, time',
          'children = []',
          'for _ in range(6):',
          '    pid = os.fork()',
          '    if pid == 0:',
          '        block = b"x" * (200 * 1024 * 1024)',
          '        time.sleep(1)',
          '        os._exit(0)',
          '    children.append(pid)',
          'statuses = [os.waitpid(pid, 0)[1] for pid in children]',
          'print(sum(status != 0 for status in statuses) > 0)',
          'sys.exit(0 if all(status == 0 for status in statuses) else 1)',
        ].join('\n'),
        memoryMb,
        timeoutMs,
      },
    ]);
    expect(alone).toMatchObject({ status: 'ok', stdout: '300\n' });
    // The seat's counters (peak usage, OOM kills) outlive a run: a later run cannot read them (in the sandbox /sys
    // is root's only; the seat's directory is too, which also holds unisolated).
    const counters = await sandbox.run({ code: 'import os\nos.listdir("/sys/fs/cgroup")' });
    expect(counters.stderr).toMatch(/PermissionError/);
    expect(many).toMatchObject({ status: 'memory', stdout: 'True\n' });
    for (const seat of seats) {
      expect(Number(readFileSync(join(seat, peak), 'utf8'))).toBeLessThanOrEqual(memoryMb * 1024 * 1024);
    }
  });
  it("the run's processes go first to the OOM killer, before the next run's child waiting in the cgroup", async (context) => {
    if (sandbox.runMemoryLimit === 'per process') context.skip();
    const adjust = 'import os\nprint(open("/proc/self/oom_score_adj").read().strip(), os.getuid() != 0)';
    expect(await sandbox.run({ code: adjust })).toMatchObject({ status: 'ok', stdout: '1000 True\n' });
    // Below 0 it cannot go (that needs CAP_SYS_RESOURCE); back to 0 it may, and a child the OOM killer takes then is
    // replaced before its request (security.test.ts).
    const lower = await sandbox.run({ code: 'open("/proc/self/oom_score_adj", "w").write("-1")' });
    expect(lower.stderr).toMatch(/PermissionError/);
  });
});
