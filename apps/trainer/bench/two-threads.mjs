/**
 * Does this machine run two compute-bound workloads at once as fast as one? Each workload runs alone, then twice
 * at once in two worker threads of one process (as the rollout workers do), then twice at once in two processes;
 * the wall time of each run is printed with its ratio to the time alone (1.00x: no slowdown). The workloads:
 * tfjs-wasm matrix products of the tiny model's size and larger ones, and a memory-bound scan over 64 MB.
 * Plain JavaScript, so that worker threads and child processes load it as is:
 *
 *   node apps/trainer/bench/two-threads.mjs [rounds=2]
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const WORKLOADS = {
  'matMul 48x256 by 256x256, 3000 times': () => matMuls([48, 256], [256, 256], 3000),
  'matMul 256x1024 by 1024x1024, 40 times': () => matMuls([256, 1024], [1024, 1024], 40),
  'scan of 64 MB (one float per cache line), 1000 passes': () => scan(1000),
};

async function matMuls(aShape, bShape, times) {
  const tf = await import('@tensorflow/tfjs');
  await import('@tensorflow/tfjs-backend-wasm');
  await tf.setBackend('wasm');
  const [a, b] = [tf.randomNormal(aShape), tf.randomNormal(bShape)];
  const run = () => {
    for (let i = 0; i < times; i++) {
      const y = tf.tidy(() => tf.softmax(tf.matMul(tf.relu(tf.matMul(a, b)), b)));
      y.dataSync();
      y.dispose();
    }
  };
  run(); // warm-up: kernels compiled, wasm memory grown
  const started = performance.now();
  run();
  return performance.now() - started;
}

function scan(passes) {
  const data = new Float32Array(16 * 1024 * 1024).fill(1);
  let sum = 0;
  const started = performance.now();
  for (let pass = 0; pass < passes; pass++) for (let i = 0; i < data.length; i += 16) sum += data[i];
  return performance.now() - started + (sum < 0 ? 1 : 0);
}

const self = fileURLToPath(import.meta.url);
if (!isMainThread) {
  parentPort.postMessage(await WORKLOADS[workerData]());
} else if (process.argv[2] === '--child') {
  process.stdout.write(String(await WORKLOADS[process.argv[3]]()));
} else {
  const child = (name) => [self, '--child', name];
  const alone = (name) => Number(spawnSync(process.execPath, child(name), { encoding: 'utf8' }).stdout);
  const inThread = (name) =>
    new Promise((resolve, reject) =>
      new Worker(self, { workerData: name }).once('message', resolve).once('error', reject),
    );
  const inProcess = (name) =>
    new Promise((resolve, reject) => {
      let out = '';
      const running = spawn(process.execPath, child(name));
      running.stdout.on('data', (chunk) => (out += chunk));
      running.once('error', reject).once('exit', () => resolve(Number(out)));
    });
  const rounds = Number(process.argv[2] ?? 2);
  const ratio = (times, single) =>
    times.map((t) => `${t.toFixed(0)} ms (${(t / single).toFixed(2)}x)`).join(', ');
  for (const name of Object.keys(WORKLOADS)) {
    for (let round = 1; round <= rounds; round++) {
      const single = alone(name);
      const threads = await Promise.all([inThread(name), inThread(name)]);
      const processes = await Promise.all([inProcess(name), inProcess(name)]);
      console.log(
        `${name}, round ${round}: alone ${single.toFixed(0)} ms; 2 threads ${ratio(threads, single)}; ` +
          `2 processes ${ratio(processes, single)}`,
      );
    }
  }
}
