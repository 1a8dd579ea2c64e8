// Run by the oldest Node the packages allow, in a project that installed their packed tarballs: every package
// loads through import and require with the same exports, and the code paths that need more than loading work
// (every entry, './node' ones included; hyparquet is ESM-only: @taorl/data/node and @taorl/eval/node read parquet
// from their CommonJS builds too; @taorl/eval/node finds the benchmark files it ships and grades on worker threads;
// the sandbox runs Python, and serves it over HTTP from @taorl/sandbox/node; the taorl-eval bin runs).
// Copied into that project and run there, so that import and require resolve the packages as a user's code would.
// Usage: node smoke.mjs <a verl parquet file with 30 rows>
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [parquet] = process.argv.slice(2);
const project = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
// The project also installs the packages' peer dependencies (TensorFlow.js); only the tarballs are checked here.
const names = Object.keys(
  JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies,
).filter((name) => name.startsWith('@taorl/'));
let failed = 0;
const check = (ok, label) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} (Node ${process.version})`);
  if (!ok) failed++;
};
async function attempt(label, run) {
  try {
    check(await run(), label);
  } catch (error) {
    check(false, `${label}: ${error.message.split('\n')[0]}`);
  }
}

// Every entry of every package ('@taorl/eval', '@taorl/eval/node', ...), as its installed exports name them.
const entries = names.flatMap((name) => {
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'));
  return Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => name + subpath.slice(1));
});
const builds = {};
for (const entry of entries) {
  await attempt(`${entry}: ESM and CJS builds load with the same exports`, async () => {
    const esm = await import(entry);
    builds[entry] = { esm };
    const cjs = require(entry);
    builds[entry].cjs = cjs;
    const keys = (module) => Object.keys(module).filter((key) => key !== '__esModule' && key !== 'default');
    return keys(esm).length > 0 && keys(esm).sort().join() === keys(cjs).sort().join();
  });
}

for (const format of ['esm', 'cjs']) {
  const data = builds['@taorl/data/node']?.[format];
  await attempt(`@taorl/data/node (${format}): loadDataset reads a parquet file`, async () => {
    let rows = 0;
    for await (const _ of data.loadDataset(parquet, 'verl')) rows++;
    return rows === 30;
  });
  const evaluation = builds['@taorl/eval/node']?.[format];
  await attempt(
    `@taorl/eval/node (${format}): loadVerlParquet, and loadBenchmark from the shipped files`,
    async () => {
      const shipped = realpathSync(join(project, 'node_modules', '@taorl', 'eval', 'data', 'benchmarks'));
      return (
        (await evaluation.loadVerlParquet(parquet)).length === 30 &&
        evaluation.defaultBenchmarkDir === shipped &&
        evaluation.loadBenchmark('amc23').length === 40
      );
    },
  );
  await attempt(
    `@taorl/eval/node (${format}): the grader pool grades, and its errors are the main entry's classes`,
    async () => {
      const pool = evaluation.createGraderPool({ size: 1 });
      const [result] = await pool.gradeMany([{ response: '\\boxed{0.5}', gold: '\\frac12' }]);
      await pool.close();
      let error;
      try {
        evaluation.loadBenchmark('no-such-benchmark');
      } catch (thrown) {
        error = thrown;
      }
      return result.correct && error instanceof builds['@taorl/eval'][format].BenchmarkFormatError;
    },
  );
}

// One registry per package per process: a plug-in registered through the CommonJS build is found by the ESM one.
const registries = {
  '@taorl/filter': (cjs, esm) => {
    cjs.registerFilter('smoke', () => cjs.trajectoryFilter('smoke', () => null));
    return esm.getFilter('smoke').name === 'smoke';
  },
  '@taorl/advantage': (cjs, esm) => {
    cjs.registerAdvantageEstimator('smoke', () => cjs.getAdvantageEstimator('rloo'));
    cjs.registerEntropyShaper('smoke', () => cjs.getEntropyShaper('none'));
    return (
      esm.getAdvantageEstimator('smoke').name === 'rloo' && esm.getEntropyShaper('smoke').name === 'none'
    );
  },
  '@taorl/grpo': (cjs, esm) => {
    cjs.registerPolicyLoss('smoke', () => cjs.vanillaPolicyLoss);
    return esm.getPolicyLoss('smoke') === cjs.vanillaPolicyLoss;
  },
  '@taorl/sandbox': (cjs, esm) => {
    cjs.registerToolFormat({ ...cjs.markdownFormat, name: 'smoke' });
    return esm.getToolFormat('smoke').name === 'smoke' && esm.sandboxBackendNames().includes('local');
  },
};
for (const [name, registerAndFind] of Object.entries(registries)) {
  await attempt(`${name}: a plug-in registered through require is found through import`, async () =>
    registerAndFind(builds[name].cjs, builds[name].esm),
  );
}

await attempt('@taorl/sandbox: runs Python', async () => {
  const sandbox = await builds['@taorl/sandbox'].esm.createSandbox({
    backend: 'local',
    workers: 1,
    preload: [],
  });
  try {
    const result = await sandbox.run({ code: 'print(6 * 7)', timeoutMs: 10_000 });
    return result.status === 'ok' && result.stdout === '42\n';
  } finally {
    await sandbox.close();
  }
});

for (const format of ['esm', 'cjs']) {
  await attempt(`@taorl/sandbox/node (${format}): startSandboxServer answers /run_code`, async () => {
    const node = format === 'esm' ? await import('@taorl/sandbox/node') : require('@taorl/sandbox/node');
    const sandbox = await builds['@taorl/sandbox'][format].createSandbox({ workers: 1, preload: [] });
    const server = await node.startSandboxServer({ sandbox, port: 0 });
    try {
      const response = await fetch(`${server.url}/run_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'print(6 * 7)', language: 'python' }),
      });
      const answer = await response.json();
      return answer.status === 'Success' && answer.run_result.stdout === '42\n';
    } finally {
      await server.close();
    }
  });
}

const bin = join(project, 'node_modules', '@taorl', 'eval', 'dist', 'cli.js');
const graded = spawnSync(process.execPath, [bin, 'grade', '--pred', '\\boxed{1/2}', '--gold', '0.5'], {
  encoding: 'utf8',
});
check(graded.status === 0 && JSON.parse(graded.stdout).correct === true, 'taorl-eval grade runs');

process.exit(failed === 0 ? 0 : 1);
