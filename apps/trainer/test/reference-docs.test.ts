import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { referencePages } from '../scripts/reference/pages.js';
import { commandFlags } from '../src/cli/command-args.js';
import { commands } from '../src/cli/run-cli.js';
import { loadConfig } from '../src/config/load-config.js';
import { renamedFields } from '../src/config/renamed-fields.js';

const root = new URL('../../../', import.meta.url);
const pages = new Map(referencePages().map((page) => [page.path, page.text]));
const page = (path: string): string => pages.get(path) ?? '';

/** Why a committed page is not the generated one: the first line that differs, and the fix. */
function staleness(path: string, committed: string, generated: string): string | undefined {
  if (committed === generated) return undefined;
  const have = committed.split('\n');
  const want = generated.split('\n');
  const line = want.findIndex((text, i) => have[i] !== text);
  const at = line === -1 ? have.length : line;
  return (
    `${path} is not what the sources generate: run pnpm docs:reference and commit the page.\n` +
    `line ${at + 1}, committed: ${JSON.stringify(have[at] ?? '(end of file)')}\n` +
    `line ${at + 1}, generated: ${JSON.stringify(want[at] ?? '(end of file)')}`
  );
}

/** The dotted paths of a config's leaf fields (a plug-in's `{name, options}` is one field). */
function leafPaths(value: unknown, path = ''): string[] {
  const isPlugin = (field: object) => Object.keys(field).join() === 'name,options';
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isPlugin(value)) return [path];
  return Object.entries(value).flatMap(([key, field]) =>
    leafPaths(field, path === '' ? key : `${path}.${key}`),
  );
}

describe('the generated reference pages (docs/reference/)', () => {
  for (const [path, generated] of pages) {
    it(`${path} is committed as generated (else: pnpm docs:reference)`, () => {
      const committed = readFileSync(new URL(path, root), 'utf8');
      const problem = staleness(path, committed, generated);
      if (problem !== undefined) throw new Error(problem);
    });
  }

  it('names every field of a parsed config, and every renamed one as deprecated', () => {
    const config = page('docs/reference/config.md');
    const fields = leafPaths(loadConfig(undefined));
    expect(fields.length).toBeGreaterThan(60);
    for (const field of fields) expect(config, field).toContain(`| \`${field}\` |`);
    for (const [old, current] of Object.entries(renamedFields))
      expect(config).toMatch(new RegExp(`\\| \`${old}\` \\| \`${current}\` \\| deprecated`));
  });

  it('names every command of taorl with each of its flags and their defaults', () => {
    const cli = page('docs/reference/cli.md');
    for (const [name, command] of commands) {
      const section = cli.split(`### \`taorl ${name}\``)[1]?.split('\n### ')[0] ?? '';
      expect(section, name).toContain(command.summary.replaceAll('<', '&lt;'));
      for (const [flag, spec] of Object.entries(command.flags)) {
        expect(section, `${name} --${flag}`).toContain(`--${flag}\``);
        if (spec.default !== undefined) expect(section).toContain(spec.default.replaceAll('<', '&lt;'));
      }
    }
    for (const flag of Object.keys(commandFlags({ flags: {}, configFlags: true })))
      expect(cli).toContain(`--${flag}\``);
    expect(cli).toContain('`taorl-sandbox serve [options]`');
    expect(cli).toMatch(/\| `--heartbeat-ms N` \| `serve` \| 5000 \|/);
    expect(cli).toContain('Usage: taorl-eval <command>');
  });

  it('tells where a stale page first differs, and how to regenerate it', () => {
    expect(staleness('docs/x.md', 'a\nb\n', 'a\nb\n')).toBeUndefined();
    expect(staleness('docs/x.md', 'a\nold\n', 'a\nnew\n')).toBe(
      'docs/x.md is not what the sources generate: run pnpm docs:reference and commit the page.\n' +
        'line 2, committed: "old"\nline 2, generated: "new"',
    );
  });
});
