import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type PyodideSandbox } from '../src/index';
import { DEFAULT_LIMITS, type ExecLimits } from '../src/limits';
import { expectMessage, type FromInterpreter } from '../src/pyodide/interpreter';
import { InterpreterProcess } from '../src/pyodide/interpreter-process';
import { pythonProgram } from '../src/python-programs';

// An interpreter put back in place after a run (pyodide/worker.mjs, `keep` and `putBack`) must be indistinguishable
// from a fresh one loaded from the snapshot. One process serves every run here, spoken to in the backend's own
// protocol, so that each test knows whether the next run got the put-back interpreter (`ready`'s `fresh` is false)
// or a freshly loaded one (any doubt about the run).
const limits: ExecLimits = { ...DEFAULT_LIMITS, timeoutMs: 60_000, cpuTimeMs: 60_000, memoryMb: 512 };
let snapshot: Extract<FromInterpreter, { type: 'snapshot' }>;
let interpreter: InterpreterProcess;

interface Served {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  reusable: boolean;
  /** Whether the interpreter that serves the next run was loaded from the snapshot (null: the process is done). */
  fresh: boolean | null;
}

/** Runs `code` in the one process and waits until it is ready for the next run. */
function serve(code: string): Promise<Served> {
  const decoder = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  const text = { stdout: '', stderr: '' };
  return new Promise((resolve, reject) => {
    let done: Omit<Served, 'fresh'> | null = null;
    interpreter.listen((message) => {
      if (message.type === 'output') text[message.stream] += decoder[message.stream].decode(message.data);
      else if (message.type === 'failed') reject(new Error(message.message));
      else if (message.type === 'done') {
        done = { ...text, exitCode: message.exitCode, reusable: message.reusable };
        if (!message.reusable) resolve({ ...done, fresh: null });
      } else if (message.type === 'ready' && done !== null) resolve({ ...done, fresh: message.fresh });
    });
    interpreter.send({
      type: 'run',
      request: { code, stdin: '', files: [], fetchFiles: [], session: [], limits },
    });
  });
}

/** Starts a new process from the snapshot (after a test that ended the last one's reuse). */
async function startProcess(): Promise<void> {
  interpreter?.kill();
  interpreter = new InterpreterProcess();
  interpreter.send({ type: 'start', snapshot: snapshot.snapshot, site: snapshot.site, reuse: true });
  await expectMessage(interpreter, 'ready', 600_000, 'the interpreter');
}

beforeAll(async () => {
  const maker = new InterpreterProcess();
  maker.send({ type: 'make', files: [], preload: [], runner: pythonProgram('pyodide_runner') });
  snapshot = await expectMessage(maker, 'snapshot', 600_000, 'the snapshot');
  maker.kill();
  await startProcess();
}, 900_000);
afterAll(() => interpreter?.kill());

// What a run can see of the interpreter's state, printed as one JSON line. It imports a module no earlier run
// imported (fractions, read from the standard library's zip), so a damaged zip shows.
const OBSERVE = `
import atexit, builtins, gc, hashlib, json, os, sys, threading
facts = {
    "builtins": sorted(dir(builtins)),
    "print": builtins.print.__module__ if hasattr(builtins.print, "__module__") else None,
    "json": sorted(vars(json)),
    "modules": sorted(sys.modules),
    "path": sys.path,
    "recursionlimit": sys.getrecursionlimit(),
    "switchinterval": sys.getswitchinterval(),
    "stdout": sys.stdout is sys.__stdout__,
    "gc": [len(gc.callbacks), gc.get_threshold()],
    "atexit": atexit._ncallbacks(),
    "globals": sorted(globals()),
    "cwd": os.getcwd(),
    "tmp": sorted(os.listdir("/tmp")),
    "home": sorted(os.listdir("/home/pyodide")),
    "lib": sorted(os.listdir("/lib")),
    "fds": sorted(os.listdir("/proc/self/fd")),
    "threads": threading.active_count(),
    "environ": dict(os.environ),
    "umask": os.umask(0o22),
    "stdlib_zip": hashlib.sha256(open("/lib/python314.zip", "rb").read()).hexdigest(),
}
from fractions import Fraction
facts["fraction"] = str(Fraction(1, 3))
print(json.dumps(facts, sort_keys=True))
`;

// Every kind of state the issue names, changed in one run (a module's attribute, builtins, print, sys.modules and
// sys settings, files in /tmp and the working directory, the standard library's zip written in place, an open file,
// a global, atexit and gc hooks, sys.stdout, the environment, the umask, the working directory).
const PLANT = `
import atexit, builtins, gc, json, os, sys, threading
json.planted = 1
builtins.planted = 2
sys.modules["planted"] = json
sys.path.insert(0, "/tmp")
sys.setrecursionlimit(77)
sys.setswitchinterval(0.5)
gc.callbacks.append(lambda *args: None)
gc.set_threshold(1, 1, 1)
atexit.register(lambda: None)
os.environ["PLANTED"] = "1"
os.umask(0)
open("/tmp/planted.txt", "w").write("x")
open("planted.txt", "w").write("y")
os.mkdir("/tmp/planted-dir")
os.chdir("/tmp")
os.rename("/home/pyodide", "/tmp/moved-home")
os.makedirs("/home/pyodide")
with open("/lib/python314.zip", "r+b") as stdlib:
    stdlib.write(b"planted")
left_open = open("/tmp/open.txt", "w")
try:
    threading.Thread(target=lambda: None).start()
except RuntimeError:
    pass
PLANTED_GLOBAL = 3
builtins.print = lambda *args, **kwargs: None
sys.stdout = open("/tmp/stdout.txt", "w")
`;

describe('pyodide: an interpreter put back in place keeps nothing of its run', () => {
  it('sees the same state after a run that changed everything as a fresh interpreter does', async () => {
    const fresh = await serve(OBSERVE);
    expect(fresh).toMatchObject({ exitCode: 0, stderr: '', reusable: true, fresh: false });
    const planted = await serve(PLANT);
    expect(planted).toMatchObject({ exitCode: 0, stderr: '', reusable: true, fresh: false });
    const after = await serve(OBSERVE);
    expect(after).toMatchObject({ exitCode: 0, stderr: '', fresh: false });
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(fresh.stdout));
    expect(JSON.parse(after.stdout).fraction).toBe('1/3');
  }, 300_000);

  it('gives back the bytes of a file changed through a shared mapping or a truncation', async () => {
    const fresh = JSON.parse((await serve(OBSERVE)).stdout);
    // Each change, and what the changing run reads back (the change took effect there).
    const changes: Record<string, [string, string]> = {
      mapping: [
        'import mmap\nwith open("/lib/python314.zip", "r+b") as f, mmap.mmap(f.fileno(), 0) as m:\n    m[-22:-16] = b"mapped"\nprint(open("/lib/python314.zip", "rb").read()[-22:-16])',
        "b'mapped'\n",
      ],
      truncation: [
        'import os\nos.truncate("/lib/python314.zip", 1000)\nprint(os.path.getsize("/lib/python314.zip"))',
        '1000\n',
      ],
    };
    for (const [change, [code, readBack]] of Object.entries(changes)) {
      const changed = await serve(code);
      expect(changed, change).toMatchObject({ exitCode: 0, stderr: '', stdout: readBack, reusable: true });
      const after = await serve(OBSERVE);
      expect(after, change).toMatchObject({ exitCode: 0, stderr: '', fresh: false });
      expect(JSON.parse(after.stdout).stdlib_zip, change).toBe(fresh.stdlib_zip);
    }
  }, 300_000);

  it('zeroes the memory a run grew: no byte of it shows in the next run', async () => {
    // The pattern is built at run time, so that the reader's code holds no copy of it; a bytes object holds its
    // data inline, so its id is where the 33 MB are (in pages the run grew). The reader needs ctypes, whose import
    // grows the function table: its own interpreter is then discarded.
    const pattern = '("TAORL" + "-LEAK-").encode()';
    const grown = await serve(`big = ${pattern} * (3 << 20)\nprint(id(big), len(big))`);
    expect(grown).toMatchObject({ exitCode: 0, stderr: '', reusable: true, fresh: false });
    const [address, length] = grown.stdout.trim().split(' ');
    const read = await serve(
      `import ctypes\nprint(ctypes.string_at(${address}, ${length}).count(${pattern}))`,
    );
    expect(read).toMatchObject({ exitCode: 0, stderr: '' });
    // At most the reader's own needle, where its allocations landed; the run before wrote three million of them.
    expect(Number(read.stdout)).toBeLessThan(10);
  }, 300_000);

  it('loads a fresh interpreter after os._exit', async () => {
    const exited = await serve('import os\nos._exit(3)');
    expect(exited).toMatchObject({ exitCode: 3, reusable: true, fresh: true });
    expect(await serve('print(1)')).toMatchObject({ stdout: '1\n', exitCode: 0 });
  }, 300_000);

  it('loads a fresh interpreter after a run that kept or dropped a JavaScript value (FFI, JS error)', async () => {
    // Part of the reference table's bookkeeping lives outside the linear memory: put back after such a run, the
    // next run's first proxy was an invalid reference, and the runtime aborted.
    const ffi = await serve(
      'from pyodide.ffi import create_proxy\nproxy = create_proxy(lambda: 0)\ntry:\n' +
        '    proxy.constructor.constructor("return 1")()\nexcept Exception:\n    print("refused")',
    );
    expect(ffi).toMatchObject({ stdout: 'refused\n', exitCode: 0, reusable: true, fresh: true });
    const next = await serve(
      'from pyodide.ffi import create_proxy\nprint(create_proxy(print).constructor is None)',
    );
    expect(next).toMatchObject({ stdout: 'False\n', stderr: '', exitCode: 0 });
  }, 300_000);

  it('loads a fresh interpreter after a run that grew the function table (ctypes loads a library)', async () => {
    const callback = await serve(
      'import builtins, ctypes\nbuiltins.planted = 1\nprint(ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 7)())',
    );
    expect(callback).toMatchObject({ stdout: '7\n', exitCode: 0, reusable: true, fresh: true });
    expect(await serve('import builtins\nprint(hasattr(builtins, "planted"))')).toMatchObject({
      stdout: 'False\n',
    });
  }, 300_000);

  it('serves no further run after a run that left a timer: the host discards the process', async () => {
    const scheduled = await serve('import asyncio\nasyncio.get_event_loop().call_later(30, print, "late")');
    expect(scheduled).toMatchObject({ exitCode: 0, reusable: false, fresh: null });
    await startProcess();
  }, 900_000);
});

describe('pyodide: the pool with one process', () => {
  let sandbox: PyodideSandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({
      backend: 'pyodide',
      workers: 1,
      packages: [],
      limits: { timeoutMs: 20_000 },
    });
  }, 900_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  it('keeps nothing of a run the time limit stopped: its process is discarded', async () => {
    const stopped = await sandbox.run({
      code: 'import builtins\nbuiltins.planted = 1\nwhile True: pass',
      timeoutMs: 3000,
    });
    expect(stopped.status).toBe('timeout');
    const next = await sandbox.run({ code: 'import builtins\nprint(hasattr(builtins, "planted"))' });
    expect(next).toMatchObject({ status: 'ok', stdout: 'False\n' });
  }, 300_000);

  it('keeps nothing of a run it put back, over many runs', async () => {
    for (let index = 0; index < 5; index++) {
      const result = await sandbox.run({
        code: `import builtins\nprint(getattr(builtins, "count", 0))\nbuiltins.count = ${index + 1}`,
      });
      expect(result).toMatchObject({ status: 'ok', stdout: '0\n' });
    }
  }, 300_000);
});
