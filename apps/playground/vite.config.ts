import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

// The playground: a static page (index.html, src/main.ts) that runs Python with '@taorl/sandbox/browser' and grades
// the printed answer with '@taorl/eval'. `pnpm playground` serves it; `pnpm --filter @taorl/playground site` writes
// dist/, a folder any static host serves.

/** The npm package pyodide that @taorl/sandbox depends on: its files are what the page serves at /pyodide/. */
const sandboxRequire = createRequire(createRequire(import.meta.url).resolve('@taorl/sandbox/package.json'));
const PYODIDE_DIR = dirname(sandboxRequire.resolve('pyodide/package.json'));
const PYODIDE_FILES = [
  'pyodide.mjs',
  'pyodide.asm.mjs',
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
];
const TYPES: Record<string, string> = {
  mjs: 'text/javascript',
  wasm: 'application/wasm',
  json: 'application/json',
};

/** Serves Pyodide's files at /pyodide/ (dev server) and writes them to the build's pyodide/ folder. */
function pyodideFiles(): Plugin {
  return {
    name: 'taorl-pyodide-files',
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const name = /^\/pyodide\/([\w.-]+)$/.exec(request.url?.split('?')[0] ?? '')?.[1];
        if (name === undefined || !PYODIDE_FILES.includes(name)) return next();
        response.setHeader('content-type', TYPES[name.split('.').at(-1) ?? ''] ?? 'application/octet-stream');
        response.end(readFileSync(join(PYODIDE_DIR, name)));
      });
    },
    generateBundle() {
      for (const name of PYODIDE_FILES) {
        this.emitFile({
          type: 'asset',
          fileName: `pyodide/${name}`,
          source: readFileSync(join(PYODIDE_DIR, name)),
        });
      }
    },
  };
}

/**
 * The workspace's packages resolve to their sources (the "@taorl/source" condition, as in the tests), where the
 * sandbox's browser entry imports its Python programs and worker script as text: what tsup's text loader does for
 * the published build, done here for Vite.
 */
function sandboxTexts(): Plugin {
  return {
    name: 'taorl-sandbox-texts',
    enforce: 'pre',
    load(id) {
      const path = id.split('?')[0] ?? id;
      if (!/\/packages\/sandbox\/(python\/[\w]+\.py|pyodide\/worker\.mjs)$/.test(path)) return null;
      return `export default ${JSON.stringify(readFileSync(path, 'utf8'))};`;
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions: ['@taorl/source', 'browser', 'module', 'import', 'default'] },
  plugins: [sandboxTexts(), pyodideFiles()],
  build: { target: 'es2022' },
});
