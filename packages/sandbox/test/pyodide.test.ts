import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSandboxOptions, createSandbox, type PyodideSandbox, SandboxSession } from '../src/index';

// The pyodide backend's statuses and limits, against real Pyodide interpreters (no packages, so that the snapshot
// is quick to make; test/pyodide-sympy.test.ts covers the packages).
const maxOutputBytes = 4096;
let sandbox: PyodideSandbox;

beforeAll(async () => {
  sandbox = await createSandbox({
    backend: 'pyodide',
    workers: 2,
    packages: [],
    limits: { timeoutMs: 20_000, maxOutputBytes, memoryMb: 256, maxFileBytes: 1024 * 1024 },
  });
}, 600_000);
afterAll(async () => {
  await sandbox?.close();
});

describe('pyodide backend: the Sandbox interface', () => {
  it('runs code: stdout, stdin, exit codes, tracebacks as python3 prints them', async () => {
    const [plain, stdin, exit, osExit, raised] = await sandbox.runMany([
      { code: 'print(6 * 7)' },
      { code: 'import sys\nprint(sys.stdin.read().upper())', stdin: 'from stdin\n' },
      { code: 'import sys\nprint("bye")\nsys.exit(3)' },
      { code: 'import os\nos._exit(4)' },
      { code: 'x = 1\nraise ValueError("boom")' },
    ]);
    expect(sandbox.backend).toBe('pyodide');
    expect(plain).toMatchObject({ status: 'ok', exitCode: 0, stdout: '42\n', stderr: '' });
    expect(stdin).toMatchObject({ status: 'ok', stdout: 'FROM STDIN\n\n' });
    expect(exit).toMatchObject({ status: 'error', exitCode: 3, stdout: 'bye\n' });
    expect(osExit).toMatchObject({ status: 'error', exitCode: 4 });
    expect(raised?.status).toBe('error');
    expect(raised?.stderr).toBe(
      'Traceback (most recent call last):\n  File "<cell>", line 2, in <module>\n    raise ValueError("boom")\n' +
        'ValueError: boom\n',
    );
  }, 300_000);

  it('stops a runaway loop at the wall clock, keeping what it printed (timeout)', async () => {
    const result = await sandbox.run({
      code: 'print("start", flush=True)\nwhile True:\n    pass',
      timeoutMs: 3000,
    });
    expect(result).toMatchObject({ status: 'timeout', stdout: 'start\n', exitCode: null, signal: 'SIGKILL' });
  }, 300_000);

  it('stops a flood of output at maxOutputBytes (output_limit)', async () => {
    const result = await sandbox.run({ code: 'while True:\n    print("x" * 1000)' });
    expect(result.status).toBe('output_limit');
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout.length).toBe(maxOutputBytes);
  }, 300_000);

  it('ends an allocation past memoryMb with MemoryError (memory)', async () => {
    const result = await sandbox.run({
      code: 'blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 2**20))',
      memoryMb: 96,
    });
    expect(result.status).toBe('memory');
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('MemoryError');
  }, 300_000);

  it('writes files before the run and fetches files after it; a file past maxFileBytes fails (EFBIG)', async () => {
    const result = await sandbox.run({
      code:
        'print(open("data/in.txt").read())\nopen("out.bin", "wb").write(bytes([0, 255]))\n' +
        'open("/tmp/abs.txt", "w").write("absolute")\n' +
        'try:\n    open("big", "wb").write(b"x" * (2 * 2**20))\nexcept OSError as e:\n    print(e.strerror)',
      files: [{ path: 'data/in.txt', content: 'given' }],
      fetchFiles: ['out.bin', '/tmp/abs.txt', 'missing.txt'],
    });
    expect(result).toMatchObject({ status: 'ok', stdout: 'given\nFile too large\n' });
    expect(result.files).toEqual([
      { path: 'out.bin', content: new Uint8Array([0, 255]) },
      { path: '/tmp/abs.txt', content: new TextEncoder().encode('absolute') },
    ]);
  }, 300_000);

  it('bounds open files by maxOpenFiles', async () => {
    const result = await sandbox.run({ code: 'handles = [open("/dev/null") for _ in range(1000)]' });
    expect(result.status).toBe('error');
    expect(result.stderr).toMatch(/OSError: \[Errno 33\] No file descriptors available/);
  }, 300_000);

  it('replays a session: earlier cells define what the next one uses, silently', async () => {
    const session = new SandboxSession(sandbox);
    expect((await session.run('x = 20\nprint("first")')).stdout).toBe('first\n');
    const second = await session.run('print(x + 1)');
    expect(second).toMatchObject({ status: 'ok', stdout: '21\n' });
  }, 300_000);

  it('keeps no state from one run to the next: modules, builtins, files, sys.path', async () => {
    const first = await sandbox.run({
      code:
        'import builtins, math, sys\nbuiltins.leak = 1\nmath.pi = 3\nsys.path.append("/x")\n' +
        'open("/tmp/left.txt", "w").write("x")\nsys.modules["planted"] = math',
    });
    expect(first.status).toBe('ok');
    const second = await sandbox.run({
      code:
        'import builtins, math, os, sys\nprint(hasattr(builtins, "leak"), math.pi, "/x" in sys.path, ' +
        'os.path.exists("/tmp/left.txt"), "planted" in sys.modules)',
    });
    expect(second.stdout).toBe('False 3.141592653589793 False False False\n');
  }, 300_000);

  it('names a missing module', async () => {
    const result = await sandbox.run({ code: 'import numpy' });
    expect(result.status).toBe('error');
    expect(result.stderr).toMatch(/ModuleNotFoundError: .*'numpy'/);
  }, 300_000);
});

describe('pyodide backend: options', () => {
  it('rejects bad options by name, before starting anything', () => {
    expect(() => checkSandboxOptions({ backend: 'pyodide', wrkers: 2 })).toThrow(/unknown option "wrkers"/);
    expect(() => checkSandboxOptions({ backend: 'pyodide', packages: ['a-b'] })).toThrow(/packages must be/);
    expect(() => checkSandboxOptions({ backend: 'pyodide', limits: { memoryMb: -1 } })).toThrow(/memoryMb/);
  });

  it('names a package that is missing, and one that is compiled', async () => {
    await expect(
      createSandbox({ backend: 'pyodide', packages: ['no_such_package'], sitePackages: '/nonexistent' }),
    ).rejects.toThrow(/"no_such_package" is not in \/nonexistent \(sitePackages\)/);
  });

  it.skipIf(!existsSync('/usr/lib/python3/dist-packages/numpy'))(
    "refuses numpy (compiled), naming it, from Debian's site packages",
    async () => {
      await expect(createSandbox({ backend: 'pyodide', packages: ['numpy'] })).rejects.toThrow(
        /"numpy" has compiled extension modules .* no WebAssembly build of it installs from npm/,
      );
    },
  );
});
