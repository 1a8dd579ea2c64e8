import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The trainer keeps one concept per folder, and its imports go one way: from the top of LAYERS down (docs/trainer.md,
// "Where things are"). A folder may import only folders below it; files never import each other in a loop.

/** src/'s folders from the top (the entry files index.ts and cli.ts, '.') to the bottom. */
const LAYERS = [
  '.',
  'cli',
  'experiments',
  'bench-eval',
  'workflows',
  'remote',
  'session',
  'report',
  'serve',
  'rl',
  'sft',
  'checkpoint',
  'workers',
  'task',
  'model',
  'plugins',
  'config',
  'util',
] as const;

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(src);
/** Every import of a source file: relative ones resolved to src/-relative paths, package ones as written. */
const imports = new Map(
  files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)[^;]*? from '([^']+)';/gms)].map((m) => m[1]!);
    return [
      relative(src, file),
      specifiers.map((specifier) =>
        specifier.startsWith('.')
          ? relative(src, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts')
          : specifier,
      ),
    ] as const;
  }),
);
const isSource = (path: string) => imports.has(path);
const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');

describe('the trainer source layout', () => {
  it('puts every source file in a folder of the layer list', () => {
    const unknown = [...imports.keys()].filter(
      (path) => !(LAYERS as readonly string[]).includes(folderOf(path)),
    );
    expect(unknown).toEqual([]);
  });

  it('imports only downwards: no folder imports a folder above it', () => {
    const upward = [...imports].flatMap(([file, targets]) =>
      targets.filter(isSource).flatMap((target) => {
        const [from, to] = [folderOf(file), folderOf(target)];
        const rank = (folder: string) => (LAYERS as readonly string[]).indexOf(folder);
        return from !== to && rank(to) < rank(from) ? [`${file} -> ${target}`] : [];
      }),
    );
    expect(upward).toEqual([]);
    // The rule the layer list encodes, spelled out for the folders it was made for.
    const reaches = (from: string, to: string) =>
      [...imports].some(
        ([file, targets]) =>
          folderOf(file) === from && targets.some((t) => isSource(t) && folderOf(t) === to),
      );
    for (const above of ['workflows', 'experiments', 'report', 'cli'])
      expect(reaches('rl', above)).toBe(false);
    // rl/ holds the learner settings a config gives (the step itself is @taorl/rl); the session composes them.
    expect(reaches('session', 'rl')).toBe(true);
  });

  it('has no import cycle between files', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      state.set(file, 'open');
      for (const target of (imports.get(file) ?? []).filter(isSource)) {
        if (state.get(target) === 'open') cycles.push([...path, file, target].join(' -> '));
        else if (!state.has(target)) visit(target, [...path, file]);
      }
      state.set(file, 'done');
    };
    for (const file of imports.keys()) if (!state.has(file)) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps config/ free of clients: only portable package entries, no server or sandbox code', () => {
    const packages = [...imports]
      .filter(([file]) => folderOf(file) === 'config')
      .flatMap(([, targets]) => targets.filter((target) => !isSource(target)));
    expect(packages.filter((name) => name.startsWith('@taorl/'))).toEqual(
      packages.filter((name) => ['@taorl/data', '@taorl/plugin-registry', '@taorl/rollout'].includes(name)),
    );
    expect(packages).not.toContain('@taorl/rollout/node');
  });
});
