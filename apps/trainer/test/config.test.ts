import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../src/index.js';
import { rlComponents } from '../src/session/components.js';

const presets = new URL('../configs/', import.meta.url);

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('trainer config', () => {
  it('accepts every shipped preset, its plug-ins and sandbox options included', () => {
    const files = readdirSync(presets).filter((name) => name.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const config = loadConfig(new URL(file, presets).pathname);
      expect(config.rl.groupSize, file).toBeGreaterThan(0);
      expect(() => rlComponents(config, file), file).not.toThrow();
    }
  });

  it('fills defaults for omitted fields and keeps given ones', () => {
    const config = parseConfig('rl:\n  learningRate: 3.0e-4\n', 'inline.yaml');
    expect(config.rl.learningRate).toBe(3e-4);
    expect(config.rl.loss).toEqual({ name: 'vanilla', options: {} });
    expect(config.rl.filters).toEqual([{ name: 'tool-aware', options: {} }]);
  });

  it('names the file and field of a wrongly typed value', () => {
    const error = errorOf(() => parseConfig('rl:\n  overlong:\n    factor: fast\n', 'bad.yaml'));
    expect(error.source).toBe('bad.yaml');
    expect(error.field).toBe('rl.overlong.factor');
    expect(error.message).toContain('bad.yaml: rl.overlong.factor: expected a finite number');
  });

  it('rejects out-of-range numbers, non-integers and unknown enum values', () => {
    expect(errorOf(() => parseConfig('rl:\n  learningRate: 0\n', 'x.yaml')).message).toContain(
      'rl.learningRate: must be > 0',
    );
    expect(errorOf(() => parseConfig('rl:\n  groupSize: 2.5\n', 'x.yaml')).field).toBe('rl.groupSize');
    const backend = errorOf(() => parseConfig('backend: webgl\n', 'x.yaml'));
    expect(backend.message).toContain("backend: 'webgl' is not one of: wasm, cpu, tensorflow");
  });

  it('words every kind of bad value with the field path', () => {
    const messages: Array<[string, string]> = [
      [
        'rl:\n  groupSize: 1e300\n',
        'rl.groupSize: expected an integer of at most 9007199254740991, got 1e+300',
      ],
      ['rl:\n  groupSize: "8"\n', 'rl.groupSize: expected a finite number, got string "8"'],
      ['backend: 3\n', 'backend: expected a string, got number 3'],
      [
        'backend: tensorfow\n',
        "backend: 'tensorfow' is not one of: wasm, cpu, tensorflow (did you mean 'tensorflow'?)",
      ],
      [
        'model:\n  path: ""\n',
        'model.path: must not be empty (leave the field out, or null, for the default)',
      ],
      ['model:\n  tokenShift: "yes"\n', 'model.tokenShift: expected true or false, got string "yes"'],
      ['rollout: [1]\n', 'rollout: expected a mapping, got a list'],
      ['rl:\n  filters: tool-aware\n', 'rl.filters: expected a list of plug-ins, got string "tool-aware"'],
      ['rl:\n  shaper: ""\n', `rl.shaper: expected a plug-in name or a mapping with 'name', got string ""`],
      ['remote:\n  endpoints: 3\n', 'remote.endpoints: expected a list of strings, got number 3'],
      [
        'remote:\n  endpoints: [http://a:1, ftp://x]\n',
        'remote.endpoints[1]: expected an http(s) URL such as http://10.0.0.5:8000, got "ftp://x"',
      ],
      ['rl:\n  overlong:\n    bufferFraction: 1.5\n', 'rl.overlong.bufferFraction: must be <= 1, got 1.5'],
    ];
    for (const [yaml, message] of messages) {
      expect(errorOf(() => parseConfig(yaml, 'x.yaml')).message).toBe(`x.yaml: ${message}`);
    }
  });

  it('treats a section left empty in YAML as all defaults, and takes one URL for a list of one', () => {
    const config = parseConfig('rl:\nremote:\n  endpoints: http://10.0.0.5:8000\n', 'x.yaml');
    expect(config.rl.groupSize).toBe(8);
    expect(config.remote.endpoints).toEqual(['http://10.0.0.5:8000']);
  });

  it('rejects unknown fields and suggests the closest known one', () => {
    const error = errorOf(() => parseConfig('rl:\n  grupSize: 4\n', 'typo.yaml'));
    expect(error.field).toBe('rl.grupSize');
    expect(error.message).toContain("did you mean 'groupSize'?");
  });

  it('reads plug-ins as a bare name or a mapping with name and options', () => {
    const yaml = [
      'rl:',
      '  shaper: {name: aepo, c: 0.01}',
      '  estimator: rloo',
      '  filters: [execution-validity, {name: answer-discriminability, minGroupSize: 3}]',
    ].join('\n');
    const config = parseConfig(yaml, 'x.yaml');
    expect(config.rl.shaper).toEqual({ name: 'aepo', options: { c: 0.01 } });
    expect(config.rl.estimator).toEqual({ name: 'rloo', options: {} });
    expect(config.rl.filters).toEqual([
      { name: 'execution-validity', options: {} },
      { name: 'answer-discriminability', options: { minGroupSize: 3 } },
    ]);
  });

  it('checks plug-in and section shapes', () => {
    expect(errorOf(() => parseConfig('rl:\n  filters: [1]\n', 'x.yaml')).field).toBe('rl.filters[0]');
    expect(errorOf(() => parseConfig('rl:\n  shaper: {alpha: 1}\n', 'x.yaml')).field).toBe('rl.shaper.name');
    expect(errorOf(() => parseConfig('rollout: 3\n', 'x.yaml')).message).toContain(
      'rollout: expected a mapping',
    );
  });

  it('applies --set overrides and names an unknown override path', () => {
    const overrides = [
      'rl.learningRate=2e-4',
      'rl.filters=[]',
      'tool.format=hermes',
      'rl.shaper={name: cheng, alpha: 0.4}',
    ];
    const config = parseConfig('rl:\n  learningRate: 1.0e-4\n', 'base.yaml', overrides);
    expect(config.rl.learningRate).toBe(2e-4);
    expect(config.rl.filters).toEqual([]);
    expect(config.tool.format).toEqual({ name: 'hermes', options: {} });
    expect(config.rl.shaper).toEqual({ name: 'cheng', options: { alpha: 0.4 } });
    const error = errorOf(() => parseConfig('{}', 'base.yaml', ['rl.overlong.factr=1']));
    expect(error.message).toBe(
      "--set rl.overlong.factr=1: rl.overlong.factr: unknown field (did you mean 'rl.overlong.factor'?)",
    );
    expect(errorOf(() => parseConfig('{}', 'base.yaml', ['rl.xyzzy=1'])).message).toBe(
      '--set rl.xyzzy=1: rl.xyzzy: unknown field',
    );
    // Names of Object's prototype are no fields either (they ended in "Cannot read properties of undefined").
    for (const path of ['__proto__.x', 'constructor.prototype.x', 'rl.__proto__.x', 'rl.constructor']) {
      expect(errorOf(() => parseConfig('{}', 'base.yaml', [`${path}=1`])).message).toBe(
        `--set ${path}=1: ${path}: unknown field`,
      );
    }
  });

  it('bounds every count and time of the config, naming the field and the bound', () => {
    const problem = (assignment: string) =>
      errorOf(() => parseConfig('{}', 'base.yaml', [assignment])).message;
    expect(problem('workers=100000')).toBe('--set workers=100000: workers: must be <= 1024, got 100000');
    expect(problem('rollout.lanes=100000')).toMatch(
      /^--set rollout\.lanes=100000: rollout\.lanes: must be <= 4096/,
    );
    expect(problem('remote.maxConcurrentPerServer=1e6')).toMatch(
      /remote\.maxConcurrentPerServer: must be <= 4096/,
    );
    // A Node timer past 2^31 - 1 ms fires at once.
    expect(problem('tool.timeoutMs=3e9')).toMatch(
      /^--set tool\.timeoutMs=3e9: tool\.timeoutMs: must be <= 2147483647/,
    );
    expect(problem('remote.timeoutMs=3e9')).toMatch(/remote\.timeoutMs: must be <= 2147483647/);
    expect(problem('pluginLoadTimeoutMs=0')).toMatch(/pluginLoadTimeoutMs: must be >= 1, got 0/);
  });

  it('sets a plug-in option by its dotted path, as config.md lists them (issue 51)', () => {
    // A plug-in written as a bare name, as a mapping, or left to its default: the option joins its mapping.
    const named = parseConfig('rl:\n  loss: vanilla\n', 'base.yaml', ['rl.loss.clipHigh=0.3']);
    expect(named.rl.loss).toEqual({ name: 'vanilla', options: { clipHigh: 0.3 } });
    const mapped = parseConfig('rl:\n  shaper: {name: cheng, alpha: 0.4}\n', 'base.yaml', [
      'rl.shaper.kappa=3',
    ]);
    expect(mapped.rl.shaper).toEqual({ name: 'cheng', options: { alpha: 0.4, kappa: 3 } });
    const unset = parseConfig('{}', 'base.yaml', ['rl.shaper.alpha=0.1']);
    expect(unset.rl.shaper).toEqual({
      name: parseConfig('{}', 'base.yaml').rl.shaper.name,
      options: { alpha: 0.1 },
    });
    expect(parseConfig('{}', 'base.yaml', ['rl.loss.name=gspo']).rl.loss.name).toBe('gspo');
    // A list of plug-ins has no dotted options; a section's own fields are still checked.
    expect(errorOf(() => parseConfig('{}', 'base.yaml', ['rl.filters.size=3'])).message).toMatch(
      /^--set rl\.filters\.size=3: rl\.filters\.size: unknown field/,
    );
  });

  it('a --set of null unsets a field, as a null in the file does', () => {
    const file = 'task:\n  name: file\n  file: train.jsonl\n  testFile: test.jsonl\n';
    expect(parseConfig(file, 'base.yaml', ['task.testFile=null']).task.testFile).toBeUndefined();
    expect(parseConfig(file, 'base.yaml', ['task.testFile=']).task.testFile).toBeUndefined();
    expect(parseConfig(`${file.replace('test.jsonl', 'null')}`, 'base.yaml').task.testFile).toBeUndefined();
    expect(parseConfig('', 'empty.yaml').seed).toBe(parseConfig('{}', 'base.yaml').seed);
  });

  it('names the --set, not the file, for a bad value the override set', () => {
    const file = 'rl:\n  groupSize: 4\n  filters: [tool-aware]\n';
    const value = errorOf(() => parseConfig(file, 'base.yaml', ['seed=2', 'rl.groupSize=0']));
    expect(value.message).toBe('--set rl.groupSize=0: rl.groupSize: must be >= 1, got 0');
    // Inside a mapping or a list the override set: the last override of the field is named.
    const mapping = errorOf(() => parseConfig(file, 'base.yaml', ['rl={groupSize: 0}', 'rl.groups=3']));
    expect(mapping.message).toBe('--set rl={groupSize: 0}: rl.groupSize: must be >= 1, got 0');
    expect(errorOf(() => parseConfig(file, 'base.yaml', ['rl.filters=[{}]'])).message).toBe(
      "--set rl.filters=[{}]: rl.filters[0].name: expected the plug-in's name (a string), got nothing",
    );
    expect(errorOf(() => parseConfig(file, 'base.yaml', ['rl={grupSize: 3}'])).message).toMatch(
      /^--set rl=\{grupSize: 3\}: rl\.grupSize: unknown field \(did you mean 'groupSize'\?\)/,
    );
    // A value the file set, with overrides of other fields, stays the file's.
    const own = errorOf(() => parseConfig('rl:\n  groupSize: 0\n', 'base.yaml', ['rl.groups=3']));
    expect(own.message).toBe('base.yaml: rl.groupSize: must be >= 1, got 0');
  });

  it('takes tool.instructions as none (the default), auto or a text of your own, never empty', () => {
    expect(parseConfig('{}', 'x.yaml').tool.instructions).toBe('none');
    expect(parseConfig('tool: {instructions: auto}\n', 'x.yaml').tool.instructions).toBe('auto');
    const own = 'Use Python. Answer in \\boxed{}.';
    expect(parseConfig(`tool: {instructions: ${JSON.stringify(own)}}\n`, 'x.yaml').tool.instructions).toBe(
      own,
    );
    expect(errorOf(() => parseConfig('tool: {instructions: ""}\n', 'x.yaml')).message).toBe(
      'x.yaml: tool.instructions: must not be empty',
    );
    expect(errorOf(() => parseConfig('tool: {instructions: 1}\n', 'x.yaml')).field).toBe('tool.instructions');
  });

  it("keeps the shipped configs' prompts as they are (the demo's and the ablation's numbers depend on them)", () => {
    const configs = new URL('../configs/', import.meta.url);
    const yamls = readdirSync(configs).filter((file) => file.endsWith('.yaml'));
    expect(yamls).toEqual(expect.arrayContaining(['demo.yaml', 'ablate.yaml']));
    for (const file of yamls) {
      expect(loadConfig(fileURLToPath(new URL(file, configs))).tool.instructions, file).toBe('none');
    }
  });

  it('takes plug-in modules as a list, or one string for a list of one', () => {
    expect(parseConfig('{}', 'x.yaml').plugins).toEqual([]);
    expect(parseConfig('plugins: ./mine.js\n', 'x.yaml').plugins).toEqual(['./mine.js']);
    expect(parseConfig('plugins: [a, "@me/b"]\n', 'x.yaml').plugins).toEqual(['a', '@me/b']);
    expect(errorOf(() => parseConfig('plugins: [""]\n', 'x.yaml')).message).toBe(
      'x.yaml: plugins[0]: must not be empty',
    );
    expect(errorOf(() => parseConfig('plugins: {a: 1}\n', 'x.yaml')).message).toBe(
      'x.yaml: plugins: expected a list of module paths or package names, got a mapping',
    );
  });

  it('reports YAML syntax errors with the line and unreadable files by path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-config-'));
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'seed: 1\nrl:\n  lr: [1, 2\n');
    const error = errorOf(() => loadConfig(file));
    expect(error.source).toBe(file);
    expect(error.message).toMatch(/line \d+: invalid YAML/);
    expect(errorOf(() => loadConfig(join(dir, 'missing.yaml'))).message).toContain('cannot read config');
  });
});
