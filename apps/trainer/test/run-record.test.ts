import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../src/cli/command-args.js';
import { configFileForm } from '../src/config/config-file-form.js';
import { loadConfig, parseConfig, readConfigFile } from '../src/config/load-config.js';
import { RUN_RECORD, runRecordText } from '../src/config/run-record.js';
import type { TrainerConfig } from '../src/config/trainer-config.js';
import { presetPath } from '../src/util/shipped.js';
import { planRun } from '../src/workflows/run-folder.js';

// <outDir>/run-config.json records the config in the form a config file writes it, so `-c run-config.json` runs
// the same config again; records written before (the parsed form, plug-ins as {name, options}) are still read.

const quiet = () => undefined;
const root = mkdtempSync(join(tmpdir(), 'taorl-run-record-'));

/** Plug-ins with options in every plug-in field, as the docs' error came from. */
const withOptions = [
  'rl:',
  '  estimator: {name: grpo, epsilon: 1.0e-6}',
  '  filters: [tool-aware, {name: max-response-tokens, maxTokens: 31, mode: mask}]',
  '  loss: {name: vanilla, clipHigh: 0.28, aggregation: seq-mean-token-mean}',
  '  shaper: {name: tao, alpha: 0.2}',
  'tool:',
  '  format: hermes',
  '  sandbox: {name: local, workers: 1, preload: []}',
  'model: {source: hf, path: models/Qwen3-0.6B}',
  'remote: {endpoints: http://10.0.0.5:8000}',
  'workers: 2',
  '',
].join('\n');

/** A record file as `taorl sft|rl` writes it, for `config`. */
function recordFile(name: string, config: TrainerConfig, text = runRecordText): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, RUN_RECORD);
  writeFileSync(path, text({ config: configFileForm(config), plugins: [], changes: [] }));
  return path;
}

/** The record as runs before this format wrote it: the parsed config, no version. */
const version1 = (config: TrainerConfig) =>
  `${JSON.stringify({ config, plugins: [], changes: [] }, null, 2)}\n`;

describe('run-config.json as a config (-c)', () => {
  const presets = readdirSync(join(presetPath('demo'), '..')).filter((file) => file.endsWith('.yaml'));

  it('reads back to the same config, for every preset and for plug-ins with options', () => {
    expect(presets.length).toBeGreaterThanOrEqual(5);
    const configs = [
      ...presets.map((file) => loadConfig(join(presetPath('demo'), '..', file), [], quiet)),
      parseConfig(withOptions, 'options.yaml', [], quiet),
    ];
    for (const [i, config] of configs.entries()) {
      const path = recordFile(`preset-${i}`, config);
      const loaded = readConfigFile(path, [], quiet);
      expect(loaded.config).toEqual(config);
      expect(loaded.recordedPlugins).toEqual([]);
    }
    // A plug-in is written as a config file writes it: its name beside its options.
    const written = configFileForm(configs.at(-1)!) as { rl: Record<string, unknown> };
    expect(written.rl.loss).toEqual({ name: 'vanilla', clipHigh: 0.28, aggregation: 'seq-mean-token-mean' });
    expect(written.rl.filters).toEqual([
      { name: 'tool-aware' },
      { name: 'max-response-tokens', maxTokens: 31, mode: 'mask' },
    ]);
    // The record's config is a config file on its own too (what a user copies out of it).
    const path = recordFile('copied', configs.at(-1)!);
    const copied = JSON.stringify(JSON.parse(readFileSync(path, 'utf8')).config);
    expect(parseConfig(copied, 'copied.json', [], quiet)).toEqual(configs.at(-1));
  });

  it('reads a record written before (the parsed form, no version), and takes --set over it', () => {
    const config = parseConfig(withOptions, 'options.yaml', [], quiet);
    const path = recordFile('version-1', config, () => version1(config));
    expect(readConfigFile(path, [], quiet).config).toEqual(config);
    const again = loadConfig(path, ['outDir="runs/again"', 'rl.loss={name: vanilla, clipHigh: 0.3}'], quiet);
    expect(again).toEqual({
      ...config,
      outDir: 'runs/again',
      rl: { ...config.rl, loss: { name: 'vanilla', options: { clipHigh: 0.3 } } },
    });
  });

  it('names the record and the field of a bad value, and refuses a record of another version', () => {
    const config = parseConfig('', 'empty.yaml', [], quiet);
    const path = recordFile('bad', { ...config, rl: { ...config.rl, groups: 0 } });
    expect(() => loadConfig(path, [], quiet)).toThrow(`${path}: config.rl.groups: must be >= 1, got 0`);
    // A bad --set stays the --set's fault.
    expect(() => loadConfig(recordFile('good', config), ['rl.groupSize=0'], quiet)).toThrow(
      '--set rl.groupSize=0: rl.groupSize: must be >= 1, got 0',
    );
    const future = recordFile('future', config, (record) =>
      JSON.stringify({ ...JSON.parse(runRecordText(record)), version: 3 }),
    );
    expect(() => loadConfig(future, [], quiet)).toThrow(`${future}: version: expected 2 or none, got 3`);
    const plugins = recordFile('plugins', config, (record) =>
      JSON.stringify({ ...record, plugins: [{ module: 'x' }] }),
    );
    expect(() => loadConfig(plugins, [], quiet)).toThrow(`${plugins}: plugins[0]: expected {module, path}`);
  });

  it('refuses a recorded plug-in module file that is missing now, naming the record and the module', async () => {
    const gone = join(root, 'gone.js');
    const path = recordFile('moved', parseConfig('', 'empty.yaml', [], quiet), (record) =>
      runRecordText({ ...record, plugins: [{ module: './my-plugins.js', path: gone }] }),
    );
    await expect(parseCommand(['-c', path], {})).rejects.toThrow(
      `${path}: plugins[0]: plug-in module './my-plugins.js' was loaded from ${gone}, which is missing now`,
    );
  });
});

/** A run folder with an SFT checkpoint at step 2 and the record `text` writes for its config. */
function recordedRun(config: TrainerConfig, text: (config: TrainerConfig) => string): TrainerConfig {
  const outDir = mkdtempSync(join(root, 'run-'));
  const run = { ...config, outDir };
  const checkpoints = join(outDir, 'checkpoints');
  mkdirSync(checkpoints);
  const file = 'sft-step-000002.safetensors';
  writeFileSync(join(checkpoints, file), '');
  writeFileSync(
    join(checkpoints, 'latest.json'),
    JSON.stringify({ phase: 'sft', step: 2, seed: run.seed, file }),
  );
  writeFileSync(join(outDir, RUN_RECORD), text(run));
  return run;
}

describe('--resume against run-config.json', () => {
  const config = parseConfig(withOptions, 'options.yaml', [], quiet);
  const flags = { resume: true, overwrite: false, allowConfigChange: false };
  const written = (run: TrainerConfig) =>
    runRecordText({ config: configFileForm(run), plugins: [], changes: [] });

  it('finds no change in the recorded config, whichever version wrote it', () => {
    for (const text of [written, version1]) {
      const run = recordedRun(config, text);
      expect(planRun(run, 'run.yaml', 'sft', flags).changes).toEqual([]);
    }
  });

  it("names a changed plug-in option as a config file writes it, in either version's record", () => {
    for (const text of [written, version1]) {
      const run = recordedRun(config, text);
      const changed = { ...run, rl: { ...run.rl, loss: { name: 'vanilla', options: { clipHigh: 0.3 } } } };
      expect(() => planRun(changed, 'run.yaml', 'sft', flags)).toThrow(
        'run.yaml: rl.loss.clipHigh, rl.loss.aggregation: differs from the run being resumed (rl.loss.clipHigh ' +
          '0.28 -> 0.3; rl.loss.aggregation "seq-mean-token-mean" -> undefined;',
      );
    }
  });
});
