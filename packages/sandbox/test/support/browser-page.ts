import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM } from '../../../../test/support/chromium';

// A page in headless Chromium that has '@taorl/sandbox/browser' as the global `taorlSandbox`, bundled from the
// sources as an application's bundler would (tsup's build of the entry loads the same texts). A local server
// serves the page, the bundle and the npm package pyodide's files under /pyodide/; under /broken/ the same files
// but pyodide.asm.wasm, which is missing there (a page that serves Pyodide incompletely).

const PYODIDE_DIR = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
const BROWSER_ENTRY = fileURLToPath(new URL('../../src/browser.ts', import.meta.url));
export const MISSING_ASSET = 'pyodide.asm.wasm';

/** The browser entry as one script that leaves its exports on globalThis.taorlSandbox. */
async function bundleEntry(): Promise<string> {
  const result = await build({
    entryPoints: [BROWSER_ENTRY],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'taorlSandbox',
    target: 'es2022',
    conditions: ['@taorl/source'],
    loader: { '.py': 'text', '.mjs': 'text' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.zip': 'application/zip',
};

async function serve(bundle: string): Promise<Server> {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const send = (status: number, type: string, body: string | Buffer) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (path === '/') return send(200, 'text/html', '<!doctype html><title>taorl pyodide</title>');
    if (path === '/sandbox.js') return send(200, 'text/javascript', bundle);
    const asset = /^\/(pyodide|broken)\/([\w.-]+)$/.exec(path);
    if (asset === null || (asset[1] === 'broken' && asset[2] === MISSING_ASSET)) {
      return send(404, 'text/plain', 'not found');
    }
    const name = asset[2] as string;
    try {
      const body = await readFile(normalize(join(PYODIDE_DIR, name)));
      send(200, TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream', body);
    } catch {
      send(404, 'text/plain', 'not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export interface PyodidePage {
  browser: Browser;
  /** The page's address: its /pyodide/ and /broken/ folders serve Pyodide's files. */
  origin: string;
  /** A fresh page with the bundle loaded; every error it logs is collected in `problems`. */
  open(): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/** Null when this machine has no Chromium (`why` says how to get one). */
export function chromiumPath(): string | null {
  return findChromium();
}
export const WHY_NO_CHROMIUM = NO_CHROMIUM;

export async function startPyodidePage(executablePath: string): Promise<PyodidePage> {
  const server = await serve(await bundleEntry());
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  return {
    browser,
    origin,
    async open() {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${origin}/`);
      await page.addScriptTag({ url: '/sandbox.js' });
      return { page, problems };
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
