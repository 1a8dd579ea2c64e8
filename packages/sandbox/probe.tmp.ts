import { createSandbox } from './src/index';
const sb = await createSandbox({ workers: 1 });
const cases: Record<string, string> = {
  pool: 'import multiprocessing as mp\ndef sq(x):\n    return x * x\nwith mp.Pool(2) as p:\n    print(p.map(sq, [1, 2, 3]))',
  deep: 'import sys, functools\nsys.setrecursionlimit(10**6)\n@functools.lru_cache(None)\ndef f(n):\n    return 0 if n == 0 else f(n-1) + 1\nprint(f(100000))',
  deeper: 'import sys, functools\nsys.setrecursionlimit(10**7)\n@functools.lru_cache(None)\ndef f(n):\n    return 0 if n == 0 else f(n-1) + 1\nprint(f(1000000))',
  thread: 'import threading, time\ndef w():\n    time.sleep(0.2); print("late")\nthreading.Thread(target=w).start()',
  threadstack: 'import threading\ndef w():\n    print("in thread")\nt = [threading.Thread(target=w) for _ in range(20)]\n[x.start() for x in t]',
  executor: 'from concurrent.futures import ThreadPoolExecutor\nimport time\ne = ThreadPoolExecutor(2)\ne.submit(lambda: (time.sleep(0.2), print("task")))',
  atexit: 'import atexit\natexit.register(lambda: print("bye"))\nraise SystemExit(3)',
  file: 'import sys\nprint(__file__, sys.argv, sys.path[0])',
  exitnone: 'import os, sys\nexit = None\nos._exit = None\nsys.exit = None\nprint("hello")',
  stack: 'import resource; print(resource.getrlimit(resource.RLIMIT_STACK))',
  tmp: 'open("/tmp/x","w").write("a"); import os; print(os.listdir("/tmp"), os.listdir("."))',
};
for (const [name, code] of Object.entries(cases)) {
  const r = await sb.run({ code, memoryMb: 1024 });
  console.log(name, r.status, r.exitCode, r.signal, JSON.stringify(r.stdout.slice(0, 300)), JSON.stringify(r.stderr.slice(-400)));
}
const m = await sb.run({ code: 'import mod\nprint(mod.X, open("/mnt/in/a.txt").read())\nopen("/tmp/o.txt","w").write("out")', files: [{ path: 'mod.py', content: 'X = 42' }, { path: '/mnt/in/a.txt', content: 'abs' }], fetchFiles: ['/tmp/o.txt'] });
console.log('mod', m.status, m.stdout, m.stderr, m.files?.map((f) => [f.path, Buffer.from(f.content).toString()]));
const many = Array.from({ length: 5000 }, (_, i) => ({ path: `d${i % 50}/f${i}.txt`, content: 'x' }));
let t = performance.now();
const r5 = await sb.run({ code: 'import os\nprint(sum(len(f) for _, _, f in os.walk(".")))', files: many });
console.log('5000 files', r5.status, r5.stdout, r5.stderr.slice(-300), performance.now() - t);
const deepPath = `${'a/'.repeat(2000)}f.txt`;
t = performance.now();
const rd = await sb.run({ code: 'import os\nprint(len(os.getcwd()))', files: [{ path: deepPath, content: 'deep' }], fetchFiles: [deepPath] });
console.log('deep', rd.status, rd.stdout, rd.stderr.slice(-300), rd.sandboxMessage?.slice(0, 300), rd.files?.length, performance.now() - t);
await sb.close();
