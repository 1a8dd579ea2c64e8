import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index';
import { type SandboxServer, startSandboxServer } from '../src/node';
import { http, runCodeBody } from './serve-http';

// What a Python run can do behind taorl-sandbox serve, as SandboxFusion runs it (`python <file>` in a fresh
// directory, stack limit = memory_limit_MB), and requests it accepts that could once kill a worker. Over real HTTP
// against a real local pool.

let server: SandboxServer;

beforeAll(async () => {
  server = await startSandboxServer({
    sandbox: await createSandbox({ workers: 2 }),
    port: 0,
    maxRunTimeoutMs: 20_000,
    maxMemoryMb: 2048,
  });
});
afterAll(async () => {
  await server?.close();
});

interface Answer {
  status: string;
  message: string;
  run_result: { status: string; return_code: number | null; stdout: string; stderr: string };
  files: Record<string, string>;
  taorl: {
    status: string;
    clamped: Record<string, { requested: number; applied: number }>;
    ignored_fields: string[];
  };
}

async function runCode(code: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  const answer = await http(server.url, '/run_code', { body: runCodeBody(code, extra) });
  expect(answer.status, answer.text).toBe(200);
  return answer.json() as Answer;
}

const decoded = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString();

describe('a run is a normal script run', () => {
  it('recurses as deep as its memory limit allows (an lru_cache 100,000 calls deep)', async () => {
    const code = [
      'import functools, resource, sys',
      'sys.setrecursionlimit(10**6)',
      '@functools.lru_cache(None)',
      'def depth(n):',
      '    return 0 if n == 0 else depth(n - 1) + 1',
      'print(depth(100_000), resource.getrlimit(resource.RLIMIT_STACK)[0] // 2**20)',
    ].join('\n');
    const result = await runCode(code, { memory_limit_MB: 1024 });
    expect(result.taorl.status, result.run_result.stderr).toBe('ok');
    expect(result.run_result.stdout).toBe('100000 1024\n');
  });

  it('keeps what is written at exit: non-daemon threads, executor tasks, atexit handlers', async () => {
    const code = [
      'import atexit, threading, time',
      'from concurrent.futures import ThreadPoolExecutor',
      'atexit.register(lambda: print("atexit"))',
      'threading.Thread(target=lambda: (time.sleep(0.3), print("thread"))).start()',
      'ThreadPoolExecutor(1).submit(lambda: (time.sleep(0.1), print("task")))',
      'print("main")',
    ].join('\n');
    const result = await runCode(code);
    expect(result.status, result.run_result.stderr).toBe('Success');
    expect(result.run_result.stdout).toBe('main\ntask\nthread\natexit\n');
  });

  it('has __file__, sys.argv and sys.path[0] of a script, and imports modules sent in files', async () => {
    const code = [
      'import os, sys',
      'import helper',
      'print(os.path.basename(__file__), sys.argv == [__file__], sys.path[0] == os.path.dirname(__file__))',
      'print(helper.ANSWER)',
    ].join('\n');
    const result = await runCode(code, {
      files: { 'helper.py': Buffer.from('ANSWER = 42').toString('base64') },
    });
    expect(result.status, result.run_result.stderr).toBe('Success');
    expect(result.run_result.stdout).toBe('main.py True True\n42\n');
  });

  it('runs multiprocessing.Pool on functions it defines, within the run', async () => {
    const code = [
      'import multiprocessing',
      'def square(x):',
      '    return x * x',
      'with multiprocessing.Pool(2) as pool:',
      '    print(pool.map(square, range(5)))',
    ].join('\n');
    const result = await runCode(code);
    expect(result.status, result.run_result.stderr).toBe('Success');
    expect(result.run_result.stdout).toBe('[0, 1, 4, 9, 16]\n');
  });

  it('writes /tmp and absolute paths of files and fetch_files in its own space, fresh for every run', async () => {
    const code = [
      'import os',
      'print(open("/mnt/data/in.txt").read(), os.listdir("/tmp"), os.listdir("."))',
      'open("/tmp/out.txt", "w").write("written")',
    ].join('\n');
    const request = {
      files: { '/mnt/data/in.txt': Buffer.from('sent').toString('base64') },
      fetch_files: ['/tmp/out.txt', '/tmp/../tmp/out.txt'],
    };
    for (const _ of [1, 2]) {
      const result = await runCode(code, request);
      expect(result.status, result.run_result.stderr).toBe('Success');
      expect(result.run_result.stdout).toBe('sent [] []\n');
      expect(decoded(result.files['/tmp/out.txt'])).toBe('written');
      expect(decoded(result.files['/tmp/../tmp/out.txt'])).toBe('written');
    }
  });

  it("keeps a success when the code replaces os._exit (SandboxFusion's anti-hack header)", async () => {
    const result = await runCode(
      'import os, sys\nos._exit = None\nsys.exit = None\nexit = None\nprint("hello")',
    );
    expect(result).toMatchObject({ status: 'Success', run_result: { stdout: 'hello\n', stderr: '' } });
  });
});

describe('requests SandboxFusion accepts', () => {
  it('applies run_timeout and memory_limit_MB within the maxima and says so', async () => {
    const result = await runCode(
      'import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20)',
      // -1 is SandboxFusion's default: no limit, here the server's maximum (run_timeout 0 is refused: serve-api).
      { memory_limit_MB: -1 },
    );
    expect(result.status).toBe('Success');
    expect(result.run_result.stdout).toBe('2048\n');
    expect(result.taorl.clamped).toEqual({ memory_limit_MB: { requested: -1, applied: 2048 } });
    const over = await runCode('print(1)', { run_timeout: 600, memory_limit_MB: 100_000 });
    expect(over.taorl.clamped).toEqual({
      run_timeout: { requested: 600, applied: 20 },
      memory_limit_MB: { requested: 100_000, applied: 2048 },
    });
  });

  it('ignores unknown fields, as pydantic does, and names them', async () => {
    const result = await runCode('print(1)', { cells: ['x'], dataset: 'mbpp' });
    expect(result.status).toBe('Success');
    expect(result.taorl.ignored_fields).toEqual(['cells', 'dataset']);
  });

  it('answers output past the cap the same way whatever the timing: Failed, Finished, return code -9', async () => {
    // Most of the 2 MiB sits in the pipe when the program exits on its own: the race that once gave return code 0.
    const codes = await Promise.all(
      [
        'import sys\nsys.stdout.write("x" * 2_000_000)',
        'print("x" * 2_000_000)\nimport time\ntime.sleep(5)',
      ].map((code) => runCode(code)),
    );
    for (const result of codes) {
      expect(result.taorl.status).toBe('output_limit');
      expect(result).toMatchObject({ status: 'Failed', run_result: { status: 'Finished', return_code: -9 } });
    }
  });
});

describe('requests that once killed a worker (issue 39)', () => {
  it('writes 5,000 files in one request', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 5000 }, (_, index) => [`d${index % 50}/f${index}.txt`, 'eA==']),
    );
    const result = await runCode('import os\nprint(sum(len(names) for _, _, names in os.walk(".")))', {
      files,
      run_timeout: 10,
    });
    expect(result.status, result.message).toBe('Success');
    expect(result.run_result.stdout).toBe('5000\n');
  });

  it('writes and fetches a path 2,000 levels deep, and refuses one past PATH_MAX naming the field', async () => {
    const deep = `${'a/'.repeat(2000)}f.txt`;
    const result = await runCode(`print(len(open("${deep}").read()))`, {
      files: { [deep]: Buffer.from('deep').toString('base64') },
      fetch_files: [deep],
    });
    expect(result.status, result.message).toBe('Success');
    expect(result.run_result.stdout).toBe('4\n');
    expect(decoded(result.files[deep])).toBe('deep');
    const tooDeep = await http(server.url, '/run_code', {
      body: runCodeBody('print(1)', { files: { [`${'a/'.repeat(2100)}f`]: 'aGk=' } }),
    });
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.text).toMatch(/files key \\?"a\/a\/.*is too long for the file system/);
    expect(tooDeep.text).not.toMatch(/Traceback|RecursionError/);
  });

  it('answers a fetched file named __proto__', async () => {
    const result = await runCode('open("__proto__", "w").write("proto")', { fetch_files: ['__proto__'] });
    expect(decoded(Object.getOwnPropertyDescriptor(result.files, '__proto__')?.value)).toBe('proto');
  });
});
