import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, DEFAULT_LIMITS, LIMIT_MAXIMA, type LocalSandbox, SandboxSession } from '../src/index';

let sandbox: LocalSandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2 });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('local backend: outcomes', () => {
  it('runs Python with bubblewrap isolation and answers ok with stdout', async () => {
    expect(sandbox.isolation).toBe('bwrap');
    const result = await sandbox.run({ code: 'print(sum(range(101)))' });
    expect(result).toMatchObject({ status: 'ok', exitCode: 0, signal: null, stdout: '5050\n', stderr: '' });
    expect(result.stdoutTruncated || result.stderrTruncated).toBe(false);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('has sympy and numpy preloaded and gives exact answers', async () => {
    const result = await sandbox.run({
      code: 'import sympy as sp, numpy as np\nx = sp.Symbol("x")\nprint(sp.integrate(x**2, (x, 0, 3)), int(np.arange(10).sum()))',
    });
    expect(result.status).toBe('ok');
    expect(result.stdout).toBe('9 45\n');
  });

  it('starts each cell with sympy and numpy already imported, but with a fresh namespace', async () => {
    const result = await sandbox.run({
      code: 'import sys\nprint("sympy" in sys.modules, "numpy" in sys.modules)',
    });
    expect(result.stdout).toBe('True True\n');
    const defined = await sandbox.run({ code: 'leftover = 41\nprint(leftover + 1)' });
    expect(defined.stdout).toBe('42\n');
    const [again, other] = await sandbox.runMany([
      { code: 'print(leftover)' },
      { code: 'print("sp" in dir(), "x" in dir())' },
    ]);
    expect(again?.status).toBe('error');
    expect(again?.stderr).toMatch(/NameError: name 'leftover' is not defined/);
    // The warm-up's own variables do not leak into cells either.
    expect(other?.stdout).toBe('False False\n');
  });

  it('reports an uncaught exception as error with the traceback of the cell', async () => {
    const result = await sandbox.run({ code: 'x = 1\ny = x / 0\n' });
    expect(result.status).toBe('error');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('File "<cell>", line 2, in <module>');
    expect(result.stderr).toContain('y = x / 0');
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('ZeroDivisionError: division by zero');
    expect(result.stderr).not.toContain('run_cell');
  });

  it('prints a traceback as python3 prints it for the same code in a file, with or without a final newline', async () => {
    const suggested = ['value = 1\nprint(valeu)', 'import math\nprint(math.sqr(4))'];
    const programs = ['print(x)', 'values = [1]\nprint(values[3])', 'print(len(5))', ...suggested];
    const folder = mkdtempSync(join(tmpdir(), 'taorl-traceback-'));
    try {
      for (const program of programs) {
        for (const code of [program, `${program}\n`]) {
          const file = join(folder, 'cell.py');
          writeFileSync(file, code);
          const python = spawnSync('/usr/bin/python3', [file], { encoding: 'utf8' });
          const expected = python.stderr.replace(`File "${file}"`, 'File "<cell>"');
          expect(expected, code).toContain('^');
          if (suggested.includes(program)) expect(expected, code).toContain('Did you mean');
          const result = await sandbox.run({ code });
          expect(result.stderr, JSON.stringify(code)).toBe(expected);
        }
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reports a syntax error as error', async () => {
    const result = await sandbox.run({ code: 'print(1' });
    expect(result.status).toBe('error');
    expect(result.stderr).toMatch(/SyntaxError/);
  });

  it('honours sys.exit codes', async () => {
    const three = await sandbox.run({ code: 'import sys\nprint("bye")\nsys.exit(3)' });
    expect(three).toMatchObject({ status: 'error', exitCode: 3, stdout: 'bye\n' });
    const zero = await sandbox.run({ code: 'import sys\nsys.exit(0)' });
    expect(zero).toMatchObject({ status: 'ok', exitCode: 0 });
    const message = await sandbox.run({ code: 'import sys\nsys.exit("fatal: stop")' });
    expect(message).toMatchObject({ status: 'error', exitCode: 1 });
    expect(message.stderr).toBe('fatal: stop\n');
  });

  it('feeds stdin and places files in the scratch directory', async () => {
    const result = await sandbox.run({
      code: 'import os\nname = input()\nprint(name, open("data/in.txt").read(), open("raw.bin", "rb").read()[1], os.getcwd() == os.environ["HOME"])',
      stdin: 'Ada\n',
      files: [
        { path: 'data/in.txt', content: 'hello' },
        { path: 'raw.bin', content: new Uint8Array([0, 200, 3]) },
      ],
    });
    expect(result.status).toBe('ok');
    expect(result.stdout).toBe('Ada hello 200 True\n');
  });

  it('gives each run fresh random state, as a fresh interpreter would', async () => {
    const code = 'import random, numpy\nprint(random.random(), numpy.random.rand())';
    const [a, b] = await sandbox.runMany([{ code }, { code }]);
    expect(a?.status).toBe('ok');
    expect(a?.stdout).not.toBe(b?.stdout);
  });

  it('runMany returns results in request order whatever finishes first', async () => {
    const requests = [0.3, 0.0, 0.2, 0.1, 0.0].map((delay, index) => ({
      code: `import time\ntime.sleep(${delay})\nprint(${index})`,
    }));
    const results = await sandbox.runMany(requests);
    expect(results.map((result) => result.stdout)).toEqual(['0\n', '1\n', '2\n', '3\n', '4\n']);
  });

  it('replays a session so earlier variables exist, with their output suppressed', async () => {
    const result = await sandbox.run({
      code: 'print(a + b)',
      session: [
        'a = 40\nprint("first cell output")',
        'b = 2',
        'raise ValueError("failed cells are ignored")',
      ],
    });
    expect(result).toMatchObject({ status: 'ok', stdout: '42\n', stderr: '' });
  });

  it('SandboxSession keeps only successful cells', async () => {
    const session = new SandboxSession(sandbox);
    expect((await session.run('import sympy as sp\nx = sp.Symbol("x")')).status).toBe('ok');
    expect((await session.run('y = undefined_name')).status).toBe('error');
    const third = await session.run('print(sp.expand((x + 1)**2))');
    expect(third.stdout).toBe('x**2 + 2*x + 1\n');
    expect(session.cells).toEqual(['import sympy as sp\nx = sp.Symbol("x")', 'print(sp.expand((x + 1)**2))']);
  });

  it('rejects malformed requests naming the field', async () => {
    await expect(sandbox.run({ code: 42 as unknown as string })).rejects.toThrow(/ExecRequest.code/);
    await expect(sandbox.run({ code: '', timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
    await expect(sandbox.run({ code: '', files: [{ path: '../x', content: '' }] })).rejects.toThrow(
      /files\[0\]\.path/,
    );
    await expect(sandbox.runMany([{ code: 'print(1)' }, { code: '', memoryMb: Number.NaN }])).rejects.toThrow(
      /request 1: .*memoryMb/,
    );
  });

  it('uses the documented defaults', () => {
    expect(DEFAULT_LIMITS.timeoutMs).toBe(10_000);
    expect(DEFAULT_LIMITS.cpuTimeMs).toBe(DEFAULT_LIMITS.timeoutMs);
  });
});

describe('sandbox failures', () => {
  // Raising RLIMIT_NOFILE past the hard limit needs a capability the child no longer has; the options accept up to
  // LIMIT_MAXIMA.maxOpenFiles, so this needs a machine whose hard limit is below that (20,000 here).
  const hardOpenFiles = Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim());
  it.skipIf(!(hardOpenFiles < LIMIT_MAXIMA.maxOpenFiles))(
    "a child that cannot apply its limits is a sandbox_error, not the code's error",
    async () => {
      const strict = await createSandbox({ workers: 1, limits: { maxOpenFiles: hardOpenFiles + 1 } });
      try {
        const result = await strict.run({ code: 'print("never runs")' });
        expect(result.status).toBe('sandbox_error');
        expect(result.stdout).toBe('');
        expect(result.sandboxMessage).toMatch(/setup failed.*ValueError/s);
      } finally {
        await strict.close();
      }
    },
  );
});

describe('close', () => {
  it('stops every worker process before it resolves, and later runs reject', async () => {
    const own = await createSandbox({ workers: 2 });
    const pids = own.workerPids();
    expect(pids).toHaveLength(2);
    await own.close();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await expect(own.run({ code: 'print(1)' })).rejects.toThrow(/after close/);
  });
});

describe('createSandbox', () => {
  it('names the registered backends for an unknown one', async () => {
    await expect(createSandbox({ backend: 'nope' })).rejects.toThrow(
      /unknown sandbox backend "nope"; registered: local, sandboxfusion/,
    );
  });

  it('rejects bad options naming the field', async () => {
    await expect(createSandbox({ workers: 0 })).rejects.toThrow(/workers/);
    await expect(createSandbox({ pythonPath: '/no/python3' })).rejects.toThrow(
      /pythonPath must be an executable file, got "\/no\/python3"/,
    );
    await expect(createSandbox({ preload: ['os; import evil'] })).rejects.toThrow(
      /preload must be an array of module names/,
    );
    await expect(createSandbox({ readOnlyPaths: ['usr'] })).rejects.toThrow(
      /readOnlyPaths must be an array of absolute/,
    );
    await expect(createSandbox({ mode: 'thread' as 'fork' })).rejects.toThrow(
      /mode must be 'fork' or 'spawn', got "thread"/,
    );
    await expect(createSandbox({ limits: { memoryMb: -5 } })).rejects.toThrow(/memoryMb/);
  });

  it('fails to start when the warm-up code fails, saying so', async () => {
    await expect(createSandbox({ workers: 1, warmup: 'raise RuntimeError("cold start")' })).rejects.toThrow(
      /warm-up code failed: RuntimeError\('cold start'\)/,
    );
  });

  it('fails to start when a preload module is missing, saying which', async () => {
    await expect(createSandbox({ workers: 1, preload: ['no_such_module_xyz'] })).rejects.toThrow(
      /no_such_module_xyz/,
    );
  });
});
