import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

// The playground: a static page (index.html, src/main.ts) that samples the demo's SFT policy in a web worker
// (@taorl/model on tfjs's wasm backend, the asset in public/policy/), and runs Python with '@taorl/sandbox/browser'
// and grades the printed answer with '@taorl/eval'. `pnpm playground` serves it; `pnpm --filter @taorl/playground
// site` writes dist/, a folder any static host serves.

const requireHere = createRequire(import.meta.url);
/** The npm package pyodide that @taorl/sandbox depends on: its files are what the page serves at /pyodide/. */
const sandboxRequire = createRequire(requireHere.resolve('@taorl/sandbox/package.json'));
/** Files of installed packages that the site serves from its own origin (no CDN), by the folder it serves them at. */
const PACKAGE_FILES: Record<string, { dir: string; files: readonly string[] }> = {
  pyodide: {
    dir: dirname(sandboxRequire.resolve('pyodide/package.json')),
    files: ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'],
  },
  // tfjs's wasm backend picks one of these at run time: threaded SIMD, SIMD, or plain WebAssembly.
  'tfjs-wasm': {
    dir: dirname(requireHere.resolve('@tensorflow/tfjs-backend-wasm')),
    files: ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'],
  },
};
const TYPES: Record<string, string> = {
  mjs: 'text/javascript',
  wasm: 'application/wasm',
  json: 'application/json',
};

/**
 * The page is cross-origin isolated, so that SharedArrayBuffer exists and tfjs's wasm backend runs threaded (it
 * falls back to one thread without them). A static host must send the same two headers.
 */
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Serves the packages' files (dev server) and writes them into the build, each under its folder. */
function packageFiles(): Plugin {
  return {
    name: 'taorl-package-files',
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const [, folder, name] = /^\/([\w-]+)\/([\w.-]+)$/.exec(request.url?.split('?')[0] ?? '') ?? [];
        const served = folder === undefined ? undefined : PACKAGE_FILES[folder];
        if (served === undefined || name === undefined || !served.files.includes(name)) return next();
        response.setHeader('content-type', TYPES[name.split('.').at(-1) ?? ''] ?? 'application/octet-stream');
        response.end(readFileSync(join(served.dir, name)));
      });
    },
    generateBundle() {
      for (const [folder, { dir, files }] of Object.entries(PACKAGE_FILES)) {
        for (const name of files) {
          this.emitFile({
            type: 'asset',
            fileName: `${folder}/${name}`,
            source: readFileSync(join(dir, name)),
          });
        }
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

/**
 * The workspace's sources keep their side effects: a package's package.json marks only its built entries as having
 * any (the registries' built-ins register themselves on import, e.g. the sandbox's tool formats, the filters), so
 * its src/ files, which the "@taorl/source" condition resolves to, would otherwise be tree-shaken out of the page.
 */
function sourceSideEffects(): Plugin {
  return {
    name: 'taorl-source-side-effects',
    transform(code, id) {
      if (!/\/packages\/[\w-]+\/src\//.test(id)) return null;
      return { code, map: null, moduleSideEffects: true };
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions: ['@taorl/source', 'browser', 'module', 'import', 'default'] },
  plugins: [sandboxTexts(), sourceSideEffects(), packageFiles()],
  // Not minified: tfjs's threaded wasm backend starts its threads from its factory function's source text
  // (Function.prototype.toString), which must keep the names it refers to outside the function.
  build: { target: 'es2022', minify: false },
  // The model's worker runs the RL step, so it imports the sandbox's browser entry too: the same text loading.
  worker: { format: 'es', plugins: () => [sandboxTexts(), sourceSideEffects()] },
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
});
