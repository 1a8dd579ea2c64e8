import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RlStepMetrics } from '@taorl/rl';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/config/run-record.js';
import { readMetrics, runCli } from '../src/index.js';
import { resolvePluginModule } from '../src/plugins/plugin-modules.js';
import { secondTfjsCopy } from '../src/plugins/tfjs-copy.js';
import { capture } from './support/capture-io.js';
import { tinyRunOverrides } from './support/tiny-run.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const examplePackage = join(repoRoot, 'examples', 'my-plugins');
const root = mkdtempSync(join(tmpdir(), 'taorl-plugins-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The `taorl` command from the sources, as a user runs it: its own process, the repository as working folder. */
function taorl(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', cli, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const sets = (assignments: readonly string[]) => assignments.flatMap((assignment) => ['--set', assignment]);

/**
 * A project folder as a user has it: the example plug-in package installed in its node_modules (a link, as npm
 * link or a workspace makes it) and a config that names it by package name and selects its three plug-ins.
 */
function project(): { config: string; outDir: string } {
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(examplePackage, join(dir, 'node_modules', 'my-taorl-plugins'), 'dir');
  const config = join(dir, 'run.yaml');
  writeFileSync(
    config,
    [
      'plugins: [my-taorl-plugins]',
      'rl:',
      '  estimator: sign',
      // Masking keeps every trajectory (and its reward in the group), so the loss has tokens to train on.
      '  filters: [{name: max-response-tokens, maxTokens: 31, mode: mask}]',
      '  loss: {name: capped-reinforce, maxWeight: 1.5, clipHigh: 0.28}',
      'workers: 2',
      '',
    ].join('\n'),
  );
  return { config, outDir: join(dir, 'out') };
}

describe('plug-in modules through the taorl CLI', () => {
  const { config, outDir } = project();
  const runArgs = ['rl', '--config', config, '--out', outDir, ...sets(tinyRunOverrides)];

  it('runs two RL steps with an estimator, a filter and a loss of its own on 2 rollout worker threads', async () => {
    const run = await taorl(runArgs);
    expect(run.stderr).not.toContain('warning');
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(join(outDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RlStepMetrics);
    expect(lines.map((line) => line.step)).toEqual([1, 2]);
    for (const line of lines) {
      expect(line.estimator).toBe('sign');
      // The filter's own metrics, named after it: it saw every trajectory of the step (2 groups x 2).
      expect(line.filterMetrics?.['max-response-tokens.meanResponseTokens']).toBe(line.responseTokens);
      expect(line.filterMetrics?.['max-response-tokens.removedShare']).toBe(line.truncatedRate);
      // A loss that reports no clip fractions gets none written, rather than zeros.
      expect(line).not.toHaveProperty('clipFracLow');
    }
    // The sign estimator's advantages are +-1 or 0; the loss ran on the worker threads (workers 2 computes
    // the update's micro-batch gradients there) and reported its own metric.
    const trained = lines.filter((line) => line.lossMetrics !== undefined);
    expect(trained.length).toBeGreaterThan(0);
    for (const line of trained) {
      expect([0.5, 1]).toContain(line.meanAbsAdvantage);
      expect(line.lossMetrics?.cappedFraction).toBeGreaterThanOrEqual(0);
      expect(line.lossMetrics?.cappedFraction).toBeLessThanOrEqual(1);
    }
    const record = JSON.parse(readFileSync(join(outDir, 'run-config.json'), 'utf8')) as RunRecord;
    expect(record.config.plugins).toEqual(['my-taorl-plugins']);
    expect(record.plugins).toEqual([
      { module: 'my-taorl-plugins', path: join(realpathSync(examplePackage), 'index.js') },
    ]);
  }, 240_000);

  it('runs the recorded config again: -c <outDir>/run-config.json gives the same metrics lines, times aside', async () => {
    const recordPath = join(outDir, 'run-config.json');
    const again = join(root, 'again');
    // From the repository, not the project folder its `plugins` resolved from: the recorded files are loaded.
    const rerun = await taorl(['rl', '-c', recordPath, '--out', again]);
    expect(rerun.stderr).not.toContain('warning');
    expect(rerun.code, rerun.stderr).toBe(0);
    const untimed = (dir: string) =>
      readMetrics(join(dir, 'metrics.jsonl')).map((line) => {
        const { time: _time, tokensPerSecond: _speed, ...rest } = line as RlStepMetrics;
        return rest;
      });
    const lines = untimed(again);
    expect(lines.map((line) => line.step)).toEqual([1, 2]);
    expect(lines).toEqual(untimed(outDir));
    // The same config and modules recorded, but for the folder.
    const first = JSON.parse(readFileSync(recordPath, 'utf8')) as RunRecord;
    const second = JSON.parse(readFileSync(join(again, 'run-config.json'), 'utf8')) as RunRecord;
    expect(second.config).toEqual({ ...first.config, outDir: again });
    expect(second.plugins).toEqual(first.plugins);
    // And it resumes from its own record as from the config file.
    const resumed = await taorl([
      'rl',
      '-c',
      join(again, 'run-config.json'),
      '--resume',
      '--set',
      'rl.steps=3',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Resuming after RL step 2');
  }, 480_000);

  it('refuses to resume a run whose recorded plug-in module is missing or not loaded', async () => {
    const recordPath = join(outDir, 'run-config.json');
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as RunRecord;
    const gone = join(root, 'moved', 'index.js');
    writeFileSync(recordPath, JSON.stringify({ ...record, plugins: [{ module: './moved', path: gone }] }));
    const missing = capture();
    expect(await runCli([...runArgs, '--resume'], missing.io)).toBe(2);
    expect(missing.err.join('')).toContain(
      `config error: ${config}: plugins: the run being resumed loaded plug-in module './moved' (${gone}; ` +
        `recorded in ${recordPath}), which is missing now (or pass --allow-config-change`,
    );
    const elsewhere = join(root, 'other-plugins.js');
    writeFileSync(elsewhere, '');
    writeFileSync(recordPath, JSON.stringify({ ...record, plugins: [{ module: 'other', path: elsewhere }] }));
    const unloaded = capture();
    expect(await runCli([...runArgs, '--resume'], unloaded.io)).toBe(2);
    expect(unloaded.err.join('')).toContain(
      `which is not loaded now: name it in plugins or pass --plugin ${elsewhere}`,
    );
  });
});

describe('plug-in module errors', () => {
  const configWith = (name: string, plugins: string) => {
    const file = join(root, name);
    writeFileSync(file, `plugins: ${plugins}\n`);
    return file;
  };

  it('names the field and the module of a module that is missing or throws while loading', async () => {
    const absent = configWith('absent.yaml', '[no-such-plugin-package]');
    const byName = capture();
    expect(await runCli(['rl', '--config', absent], byName.io)).toBe(2);
    expect(byName.err.join('')).toBe(
      `taorl rl: config error: ${absent}: plugins[0]: cannot find plug-in package 'no-such-plugin-package' ` +
        `from ${root} (is it installed there?)\n`,
    );
    writeFileSync(join(root, 'throws.js'), "throw new Error('bad plug-in');\n");
    const throwing = configWith('throwing.yaml', '[./throws.js]');
    const thrown = capture();
    expect(await runCli(['rl', '--config', throwing], thrown.io)).toBe(2);
    expect(thrown.err.join('')).toBe(
      `taorl rl: config error: ${throwing}: plugins[0]: plug-in module './throws.js' ` +
        `(${join(root, 'throws.js')}) failed to load: bad plug-in\n`,
    );
    const flag = capture();
    expect(await runCli(['rl', '--plugin', './no-such-file.js'], flag.io)).toBe(2);
    expect(flag.err.join('')).toContain(
      "config error: --plugin ./no-such-file.js: plugin: cannot find plug-in module './no-such-file.js'",
    );
  });

  it('names a module that throws something other than an Error, or registers a factory of the wrong shape', async () => {
    const cases: [string, string][] = [
      ['throw null;', 'it threw null, which is not an Error'],
      ["throw { code: 'E_PLUGIN' };", "it threw { code: 'E_PLUGIN' }, which is not an Error"],
    ];
    for (const [i, [body, problem]] of cases.entries()) {
      const file = join(root, `throws-value-${i}.js`);
      writeFileSync(file, `${body}\n`);
      const config = configWith(`throws-value-${i}.yaml`, `[./throws-value-${i}.js]`);
      const run = capture();
      expect(await runCli(['rl', '--config', config], run.io)).toBe(2);
      expect(run.err.join('')).toBe(
        `taorl rl: config error: ${config}: plugins[0]: plug-in module './throws-value-${i}.js' (${file}) ` +
          `failed to load: ${problem}\n`,
      );
    }
    const advantage = pathToFileURL(join(repoRoot, 'packages/advantage/src/index.ts')).href;
    writeFileSync(
      join(root, 'shapeless.js'),
      `import { registerAdvantageEstimator } from ${JSON.stringify(advantage)};\n` +
        "registerAdvantageEstimator('shapeless', () => ({ name: 'shapeless' }));\n",
    );
    const config = configWith('shapeless.yaml', '[./shapeless.js]\nrl: {estimator: shapeless}');
    const shapeless = capture();
    expect(await runCli(['rl', '--config', config, '--set', 'rl.steps=0'], shapeless.io)).toBe(2);
    expect(shapeless.err.join('')).toContain(
      `config error: ${config}: rl.estimator: advantage estimator "shapeless" (registered by plug-in module ` +
        "'./shapeless.js'): its factory is of the wrong shape: the object it built has no method estimate()",
    );
  });

  it('bounds the time a module takes to load and refuses one that exits, naming module and field', async () => {
    const write = (name: string, body: string) => {
      writeFileSync(join(root, name), body);
      return configWith(`${name}.yaml`, `[./${name}]`);
    };
    const failure = (config: string, name: string, problem: string) =>
      `taorl rl: config error: ${config}: plugins[0]: plug-in module './${name}' (${join(root, name)}) failed to ` +
      `load: ${problem}\n`;
    // Awaiting nothing that can finish (the process had exited 0 without a run).
    const idle = write('idle.mjs', 'await new Promise(() => {});\n');
    const idleRun = await taorl(['rl', '--config', idle]);
    expect(idleRun.stderr).toBe(
      failure(
        idle,
        'idle.mjs',
        'its import never settles: a top-level await waits on nothing that can finish',
      ),
    );
    expect(idleRun.code).toBe(2);
    // Awaiting forever while a timer of its own keeps the process busy (it had hung).
    const busy = write('busy.mjs', 'setInterval(() => {}, 1000);\nawait new Promise(() => {});\n');
    const busyRun = await taorl(['rl', '--config', busy, '--set', 'pluginLoadTimeoutMs=500']);
    expect(busyRun.stderr).toBe(
      failure(
        busy,
        'busy.mjs',
        'its import did not finish within 500 ms (a top-level await that never settles?); raise ' +
          'pluginLoadTimeoutMs if it needs longer',
      ),
    );
    expect(busyRun.code).toBe(2);
    // Ending the process while it loads (exit 0, no run).
    const exits = write('exits.mjs', 'process.exit(0);\n');
    const exitRun = await taorl(['rl', '--config', exits]);
    expect(exitRun.stderr).toBe(
      failure(
        exits,
        'exits.mjs',
        'it called process.exit(0) while loading; a plug-in module must not end the process',
      ),
    );
    expect(exitRun.code).toBe(2);
  }, 120_000);

  it('bounds the load in worker threads too: a module that never settles there fails the run, naming it', async () => {
    writeFileSync(
      join(root, 'worker-idle.mjs'),
      "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) await new Promise(() => {});\n",
    );
    const config = configWith('worker-idle.yaml', '[./worker-idle.mjs]\nworkers: 2');
    const run = await taorl([
      'rl',
      '--config',
      config,
      '--out',
      join(root, 'worker-idle-out'),
      ...sets([...tinyRunOverrides, 'pluginLoadTimeoutMs=2000']),
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `${config}: plugins[0]: plug-in module './worker-idle.mjs' (${join(root, 'worker-idle.mjs')}) failed to load ` +
        'in a worker thread: its import did not finish within 2000 ms',
    );
  }, 240_000);

  it('resolves a path from the given folder and a package, ESM-only ones included, from its node_modules', () => {
    const dir = join(root, 'resolve');
    const esmOnly = join(dir, 'node_modules', 'esm-only');
    mkdirSync(esmOnly, { recursive: true });
    writeFileSync(
      join(esmOnly, 'package.json'),
      '{"type": "module", "exports": {".": {"import": "./main.js"}}}',
    );
    writeFileSync(join(esmOnly, 'main.js'), '');
    writeFileSync(join(dir, 'mine.js'), '');
    const nested = join(dir, 'configs', 'deeper');
    mkdirSync(nested, { recursive: true });
    expect(resolvePluginModule('esm-only', nested)).toBe(join(esmOnly, 'main.js'));
    expect(resolvePluginModule('../../mine.js', nested)).toBe(join(dir, 'mine.js'));
    expect(resolvePluginModule(join(dir, 'mine.js'), tmpdir())).toBe(join(dir, 'mine.js'));
    expect(() => resolvePluginModule('./mine.js', nested)).toThrow(
      `cannot find plug-in module './mine.js' (looked for ${join(nested, 'mine.js')})`,
    );
  });

  it('warns about a plug-in package that brings its own TensorFlow.js, naming both copies', () => {
    const pkg = join(root, 'own-tfjs');
    const core = join(pkg, 'node_modules', '@tensorflow', 'tfjs-core');
    mkdirSync(core, { recursive: true });
    writeFileSync(join(core, 'package.json'), '{"name": "@tensorflow/tfjs-core", "main": "index.js"}');
    writeFileSync(join(core, 'index.js'), '');
    writeFileSync(join(pkg, 'index.js'), '');
    const warning = secondTfjsCopy(join(pkg, 'index.js'));
    expect(warning).toContain(`it would load its own copy of TensorFlow.js (${core}; the trainer's is `);
    expect(warning).toContain('Declare @tensorflow/tfjs as a peerDependency');
    // The example package declares tfjs as a peer dependency: it gets the trainer's copy.
    expect(secondTfjsCopy(join(examplePackage, 'index.js'))).toBeNull();
  });
});
