// The floor under a call of the pool: what a fresh process per run costs on this machine before any of the pool's
// own steps. A python3 that imported and warmed up what the pool's workers do (sympy and numpy, the default
// warm-up, gc.freeze()) forks a child (the C library's fork, as the zygote does), which runs a snippet and exits;
// the parent times the fork and the child's whole life to its reaping, and the same snippet run again in the
// parent (warm: the ceiling). Then the pool's own call, one worker, the same snippets, in the same run; and the
// cost of one copy-on-write fault (a child writing one byte to each page of a buffer its parent filled) and of a
// bulk copy (madvise MADV_POPULATE_WRITE). Run from the repository root:
//   pnpm bench packages/sandbox/bench/fork-floor.ts
// Knobs: BENCH_TRIALS (40), the trials per row; the medians are printed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createSandbox } from '@taorl/sandbox';
import { defaultWarmup } from '../src/local/warmup';

const TRIALS = Number(process.env.BENCH_TRIALS ?? 40);
const SNIPPETS = {
  empty: '',
  arithmetic: 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
};

const FLOOR = `
import ctypes, gc, json, os, statistics, sys, time
config = json.loads(sys.argv[1])
for name in ("sympy", "numpy"):
    __import__(name)
exec(compile(config["warmup"], "<warmup>", "exec"), {"__name__": "__warmup__"})
gc.freeze()
fork = ctypes.PyDLL(None).fork
libc = ctypes.CDLL(None)
quiet = os.open(os.devnull, os.O_WRONLY)
rows = {}

def child_life(code):
    started = time.perf_counter()
    pid = fork()
    if pid == 0:
        os.dup2(quiet, 1)
        exec(code, {"__name__": "__main__"})
        sys.stdout.flush()
        os._exit(0)
    forked = time.perf_counter()
    os.waitpid(pid, 0)
    return (forked - started) * 1000, (time.perf_counter() - started) * 1000

def in_process(code):
    saved = os.dup(1)
    os.dup2(quiet, 1)
    started = time.perf_counter()
    exec(code, {"__name__": "__main__"})
    sys.stdout.flush()
    elapsed = (time.perf_counter() - started) * 1000
    os.dup2(saved, 1)
    os.close(saved)
    return elapsed

for label, source in config["snippets"].items():
    code = compile(source, "<cell>", "exec")
    lives = [child_life(code) for _ in range(config["trials"])]
    in_process(code)
    warm = [in_process(code) for _ in range(config["trials"])]
    rows[label] = {"fork": statistics.median(f for f, _ in lives), "life": statistics.median(l for _, l in lives),
                   "warm": statistics.median(warm)}

pages = 4096
buffer = bytearray(pages * 4096 + 4096)
for offset in range(0, len(buffer), 4096):
    buffer[offset] = 1
start = (ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer)) + 4095) // 4096 * 4096
def per_page(bulk):
    read, write = os.pipe()
    pid = fork()
    if pid == 0:
        began = time.perf_counter()
        if bulk:
            libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(pages * 4096), 23)
        else:
            base = start - ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer))
            for offset in range(base, base + pages * 4096, 4096):
                buffer[offset] = 2
        os.write(write, str((time.perf_counter() - began) * 1e6 / pages).encode())
        os._exit(0)
    os.close(write)
    value = float(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    return value
rows["fault"] = {"us": statistics.median(per_page(False) for _ in range(5)),
                 "bulk": statistics.median(per_page(True) for _ in range(5))}
print(json.dumps(rows))
`;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const fmt = (value: number) => value.toFixed(1);

const { stdout } = await promisify(execFile)(
  '/usr/bin/python3',
  [
    '-c',
    FLOOR,
    JSON.stringify({ warmup: defaultWarmup(['sympy', 'numpy']), snippets: SNIPPETS, trials: TRIALS }),
  ],
  { maxBuffer: 1 << 20 },
);
const floor = JSON.parse(stdout) as Record<
  keyof typeof SNIPPETS,
  { fork: number; life: number; warm: number }
> & {
  fault: { us: number; bulk: number };
};

const sandbox = await createSandbox({ workers: 1 });
const pool: Record<string, number> = {};
try {
  for (const [label, code] of Object.entries(SNIPPETS)) {
    await sandbox.run({ code });
    const latencies: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const started = performance.now();
      const result = await sandbox.run({ code });
      latencies.push(performance.now() - started);
      if (result.status !== 'ok') throw new Error(`${label}: ${result.status} ${result.stderr}`);
    }
    pool[label] = median(latencies);
  }
} finally {
  await sandbox.close();
}

console.log(
  '| snippet | warm, in process ms | fork ms | fork to reaped ms | child alone ms (reaped - fork) | pool call ms | pool call - child alone ms |',
);
console.log('|---|---|---|---|---|---|---|');
for (const label of Object.keys(SNIPPETS) as (keyof typeof SNIPPETS)[]) {
  const row = floor[label];
  const alone = row.life - row.fork;
  const call = pool[label] as number;
  console.log(
    `| ${label} | ${row.warm.toFixed(2)} | ${fmt(row.fork)} | ${fmt(row.life)} | ${fmt(alone)} | ${fmt(call)} | ${fmt(call - alone)} |`,
  );
}
console.log(
  `\nOne copy-on-write fault (a write to a page shared with the parent): ${floor.fault.us.toFixed(1)} us; ` +
    `copied in bulk (madvise MADV_POPULATE_WRITE): ${floor.fault.bulk.toFixed(1)} us a page. Medians of ${TRIALS} trials.`,
);
