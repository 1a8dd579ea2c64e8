import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands, runCli } from '../src/index.js';
import { capture } from './support/capture-io.js';

describe('taorl CLI', () => {
  it('prints usage and exits 2 on an unknown command', async () => {
    const { io, out, err } = capture();
    expect(await runCli(['frobnicate'], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain("unknown command 'frobnicate'");
    expect(err.join('')).toContain('Usage: taorl <command>');
  });

  it('lists the trainer commands in the usage', async () => {
    const { io, out } = capture();
    expect(await runCli(['--help'], io)).toBe(0);
    const usage = out.join('');
    expect(usage).toMatch(/^Usage: taorl/);
    expect([...commands.keys()]).toEqual(['demo', 'sft', 'rl', 'eval', 'curate', 'serve', 'ablate']);
    for (const name of commands.keys()) expect(usage).toContain(`  ${name} `);
  });

  it('prints the version from package.json', async () => {
    const { io, out } = capture();
    expect(await runCli(['--version'], io)).toBe(0);
    expect(out.join('')).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("prints a command's own usage with its flags", async () => {
    const { io, out } = capture();
    expect(await runCli(['curate', '--help'], io)).toBe(0);
    const usage = out.join('');
    expect(usage).toContain('Usage: taorl curate [options]');
    for (const flag of ['--config', '--set', '--plugin', '--out', '--problems', '--samples'])
      expect(usage).toContain(flag);
  });

  it('rejects unknown flags with exit code 2 before starting anything', async () => {
    const { io, err } = capture();
    expect(await runCli(['rl', '--stpes', '3'], io)).toBe(2);
    expect(err.join('')).toContain("Unknown option '--stpes'");
    expect(err.join('')).toContain('taorl rl --help');
  });

  it('rejects --eval-greedy without an evaluation to add its greedy line to, before starting anything', async () => {
    const { io, err } = capture();
    expect(await runCli(['rl', '--eval-greedy'], io)).toBe(2);
    expect(err.join('')).toContain('--eval-greedy: needs --eval or --eval-after');
  });

  it('reports a bad config field by file and field with exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-cli-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'rl:\n  groupSize: many\n');
    const { io, err } = capture();
    expect(await runCli(['rl', '--config', file], io)).toBe(2);
    expect(err.join('')).toContain(`${file}: rl.groupSize: expected a finite number`);
  });

  it('names the --set, not the config file, for a plug-in name it gave that no registry knows', async () => {
    const { io, err } = capture();
    expect(await runCli(['rl', '--set', 'rl.shaper=entropy-magic'], io)).toBe(2);
    expect(err.join('')).toMatch(
      /^taorl rl: config error: --set rl\.shaper=entropy-magic: rl\.shaper: unknown entropy shaper "entropy-magic"; registered: .*\btao\b.* \(a plug-in of your own: name its module under 'plugins:' in the config or with --plugin <module>\)$/m,
    );
  });

  it('ends a YAML alias bomb, a huge count and an empty or unusable outDir with exit 2 naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-cli-'));
    const bomb = join(dir, 'bomb.yaml');
    const level = (name: string, of: string) => `${name}: &${name} [${Array(9).fill(`*${of}`).join(', ')}]`;
    writeFileSync(
      bomb,
      ['a: &a [x, x, x, x, x, x, x, x, x]', level('b', 'a'), level('c', 'b'), level('d', 'c'), ''].join('\n'),
    );
    const aliases = capture();
    expect(await runCli(['rl', '--config', bomb], aliases.io)).toBe(2);
    expect(aliases.err.join('')).toContain(
      `config error: ${bomb}: (root): invalid YAML: Excessive alias count`,
    );
    const huge = capture();
    expect(await runCli(['rl', '--set', 'rl.groupSize=1e300'], huge.io)).toBe(2);
    expect(huge.err.join('')).toContain('rl.groupSize: expected an integer of at most');
    const many = capture();
    expect(await runCli(['rl', '--set', 'rl.groupSize=100000'], many.io)).toBe(2);
    expect(many.err.join('')).toContain('rl.groupSize: must be <= 4096');
    const empty = capture();
    expect(await runCli(['rl', '--out', ''], empty.io)).toBe(2);
    expect(empty.err.join('')).toContain('outDir: must not be empty');
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const notFolder = capture();
    expect(await runCli(['rl', '--out', file], notFolder.io)).toBe(2);
    expect(notFolder.err.join('')).toContain(`outDir: ${file} exists and is not a folder`);
    const path = capture();
    expect(await runCli(['rl', '--set', 'model.path=""'], path.io)).toBe(2);
    expect(path.err.join('')).toContain('model.path: must not be empty');
  });

  it('names the config field of an unknown plug-in before any model or sandbox starts', async () => {
    const { io, err } = capture();
    expect(await runCli(['rl', '--set', 'rl.shaper=entropy-magic'], io)).toBe(2);
    expect(err.join('')).toContain('rl.shaper: unknown entropy shaper');
    const second = capture();
    expect(await runCli(['rl', '--set', 'rl.loss={name: vanilla, clipHi: 0.3}'], second.io)).toBe(2);
    expect(second.err.join('')).toContain(
      `rl.loss: policy loss "vanilla": takes no options, got 'clipHi' (did you mean 'clipHigh' for 'clipHi'?)`,
    );
    const third = capture();
    expect(await runCli(['rl', '--set', 'rl.filters=[tool-aware, {name: nope}]'], third.io)).toBe(2);
    expect(third.err.join('')).toContain('rl.filters[1]: unknown filter');
  });

  it('names a misspelled sandbox option before any model or sandbox starts', async () => {
    const { io, err } = capture();
    expect(await runCli(['rl', '--set', 'tool.sandbox={name: local, wrkers: 2}'], io)).toBe(2);
    expect(err.join('')).toContain(
      'tool.sandbox: sandbox backend "local": createSandbox: unknown option "wrkers" (did you mean "workers"?)',
    );
    const limits = capture();
    const setting = 'tool.sandbox={name: sandboxfusion, url: "http://127.0.0.1:1", limits: {timeoutMS: 100}}';
    expect(await runCli(['rl', '--set', setting], limits.io)).toBe(2);
    expect(limits.err.join('')).toContain(
      'tool.sandbox: sandbox backend "sandboxfusion": createSandbox (sandboxfusion) limits: unknown option ' +
        '"timeoutMS" (did you mean "timeoutMs"?)',
    );
  });
});
