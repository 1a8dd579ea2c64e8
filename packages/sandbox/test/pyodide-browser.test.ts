import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecRequest, ExecResult } from '../src/browser';
import {
  chromiumPath,
  MISSING_ASSET,
  type PyodidePage,
  startPyodidePage,
  WHY_NO_CHROMIUM,
} from './support/browser-page';

// The pyodide backend in a browser ('@taorl/sandbox/browser'): headless Chromium runs the bundled entry, each run
// in a web worker with Pyodide from the page's own /pyodide/ folder. The bridges tried here are those of
// pyodide-boundary.test.ts; docs/explanation/sandbox.md has the table of what holds in a browser.

const executablePath = chromiumPath();
if (executablePath === null && process.env.CI)
  throw new Error(`CI must run the browser pyodide test: ${WHY_NO_CHROMIUM}`);

interface BrowserGlobals {
  taorlSandbox: typeof import('../src/browser');
  sandbox: import('../src/browser').PyodideSandbox;
}

describe.skipIf(executablePath === null)(
  executablePath === null
    ? `the pyodide backend in headless Chromium (skipped: ${WHY_NO_CHROMIUM})`
    : 'the pyodide backend in headless Chromium',
  () => {
    let served: PyodidePage;
    let page: Page;
    let problems: string[];

    beforeAll(async () => {
      served = await startPyodidePage(executablePath as string);
      ({ page, problems } = await served.open());
      await page.evaluate(async () => {
        const globals = globalThis as unknown as BrowserGlobals;
        globals.sandbox = await globals.taorlSandbox.createSandbox({
          backend: 'pyodide',
          indexURL: '/pyodide/',
          workers: 2,
          // Generous: this machine may be loaded, and a timeout here would hide the status under test.
          limits: { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 },
        });
      });
    }, 600_000);
    afterAll(async () => {
      await page?.evaluate(() => (globalThis as unknown as BrowserGlobals).sandbox?.close());
      expect(problems).toEqual([]);
      await served?.close();
    });

    const runMany = (requests: ExecRequest[]): Promise<ExecResult[]> =>
      page.evaluate((sent) => (globalThis as unknown as BrowserGlobals).sandbox.runMany(sent), requests);
    const run = async (request: ExecRequest): Promise<ExecResult> =>
      (await runMany([request]))[0] as ExecResult;
    const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1) ?? '';

    it('runs Python: arithmetic, stdin, files in and out, a session replayed', async () => {
      const [arithmetic, stdin, files, session] = await runMany([
        { code: 'print(6 * 7, 2 ** 100)' },
        { code: 'print(input()[::-1])', stdin: 'olleh\n' },
        {
          code: 'data = open("in/a.txt").read()\nopen("out.txt", "w").write(data.upper())',
          files: [{ path: 'in/a.txt', content: 'abc' }],
          fetchFiles: ['out.txt', 'missing.txt'],
        },
        { code: 'print(x + 1)', session: ['x = 41', 'print("replayed, not shown")'] },
      ]);
      expect(arithmetic).toMatchObject({ status: 'ok', exitCode: 0, stdout: `42 ${2n ** 100n}\n` });
      expect(stdin).toMatchObject({ status: 'ok', stdout: 'hello\n' });
      expect(files?.status).toBe('ok');
      expect(
        files?.files?.map(({ path, content }) => [
          path,
          new TextDecoder().decode(new Uint8Array(Object.values(content))),
        ]),
      ).toEqual([['out.txt', 'ABC']]);
      expect(session).toMatchObject({ status: 'ok', stdout: '42\n' });
    }, 300_000);

    it('stops a runaway loop at its time limit (a status, the page responsive, a fresh worker after it)', async () => {
      const pending = run({ code: 'while True:\n    pass', timeoutMs: 5000 });
      let ended = false;
      void pending.then(() => {
        ended = true;
      });
      // The page's own thread answers while the loop runs in its worker.
      await page.waitForFunction(() => performance.now() > 0);
      expect(ended).toBe(false);
      const looping = await pending;
      expect(looping).toMatchObject({ status: 'timeout', exitCode: null, signal: 'SIGKILL' });
      expect(looping.durationMs).toBeGreaterThanOrEqual(4900);
      expect(await run({ code: 'print("alive")' })).toMatchObject({ status: 'ok', stdout: 'alive\n' });
    }, 300_000);

    it('bounds an output flood: output_limit, at most maxOutputBytes kept', async () => {
      const flood = await run({ code: 'while True:\n    print("x" * 1000)' });
      expect(flood.status).toBe('output_limit');
      expect(flood.stdoutTruncated).toBe(true);
      expect(flood.stdout.length).toBe(64 * 1024);
    }, 300_000);

    it('errors and memory are statuses as in Node', async () => {
      const [error, exit, memory] = await runMany([
        { code: 'raise ValueError("no")' },
        { code: 'import sys\nsys.exit(3)' },
        { code: 'chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))', memoryMb: 256 },
      ]);
      expect(error).toMatchObject({ status: 'error', exitCode: 1 });
      expect(lastLine(error?.stderr ?? '')).toBe('ValueError: no');
      expect(exit).toMatchObject({ status: 'error', exitCode: 3 });
      expect(memory?.status).toBe('memory');
    }, 300_000);

    it('keeps no state from one run to the next: modules, builtins, files, globals', async () => {
      const probe = {
        code: [
          'import builtins, os, sys',
          'print("fractions" in sys.modules, hasattr(builtins, "leak"), os.path.exists("/tmp/left"),',
          '      os.path.exists("left.txt"), "y" in globals())',
        ].join('\n'),
      };
      const before = await run(probe);
      expect(before).toMatchObject({ status: 'ok', stdout: 'False False False False False\n' });
      const change = await run({
        code: [
          'import builtins, fractions',
          'builtins.leak = 1',
          'y = 2',
          'open("/tmp/left", "w").write("x")',
          'open("left.txt", "w").write("x")',
        ].join('\n'),
      });
      expect(change.status).toBe('ok');
      // Both lanes' next interpreters: each run has a worker of its own.
      const after = await runMany([probe, probe]);
      expect(after.map((result) => result.stdout)).toEqual([before.stdout, before.stdout]);
    }, 300_000);

    it('closes the bridges: no js, no pyodide_js, no run_js', async () => {
      const [js, api, runJs] = await runMany([
        { code: 'import js\nprint(js.fetch)' },
        { code: 'import pyodide_js\nprint(pyodide_js.FS)' },
        { code: 'from pyodide.code import run_js\nprint(run_js("self.location.href"))' },
      ]);
      expect(lastLine(js?.stderr ?? '')).toBe("ModuleNotFoundError: No module named 'js'");
      expect(lastLine(api?.stderr ?? '')).toBe("ModuleNotFoundError: No module named 'pyodide_js'");
      expect(runJs?.status).toBe('error');
      expect(runJs?.stdout).toBe('');
    }, 300_000);

    it('compiles no JavaScript through a proxy, although the worker allows eval', async () => {
      const [direct, twice] = await runMany([
        {
          code:
            'from pyodide.ffi import create_proxy\nproxy = create_proxy(lambda: 0)\n' +
            'print(proxy.constructor.constructor("return self.location.href")())',
        },
        {
          code:
            'from pyodide.ffi import create_proxy\nproxy = create_proxy(lambda: 0)\n' +
            'print(proxy.constructor.constructor.constructor("return 1")())',
        },
      ]);
      for (const result of [direct, twice]) {
        expect(result?.status).toBe('error');
        expect(result?.stdout).toBe('');
        expect(lastLine(result?.stderr ?? '')).toMatch(/EvalError: Code generation from strings disallowed/);
      }
    }, 300_000);

    it("reaches no proxy of the worker's global scope, the Pyodide API, or a function that compiles code", async () => {
      const result = await run({
        code: [
          'import gc',
          'from pyodide.ffi import JsProxy, create_proxy',
          'proxies = [o for o in gc.get_objects() if isinstance(o, JsProxy)] + [create_proxy(print)]',
          'escaped = 0',
          'for proxy in proxies:',
          '    names = ("FS", "runPython", "_module", "postMessage", "fetch", "importScripts", "location")',
          '    if any(hasattr(proxy, name) for name in names):',
          '        escaped += 1',
          '    try:',
          '        proxy.constructor.constructor("return globalThis")()',
          '        escaped += 1',
          '    except Exception:',
          '        pass',
          'print(len(proxies) > 0, escaped)',
        ].join('\n'),
      });
      expect(result).toMatchObject({ status: 'ok', stdout: 'True 0\n' });
    }, 300_000);

    it('opens no connection and starts no process: sockets, urllib, os.system, subprocess', async () => {
      const [tcp, http, system, subprocess] = await runMany([
        { code: `import socket\nsocket.create_connection(("127.0.0.1", 9), timeout=2)` },
        { code: `import urllib.request\nurllib.request.urlopen("${served.origin}/", timeout=2)` },
        { code: 'import os\nprint(os.system("true"))' },
        { code: 'import subprocess\nsubprocess.run(["true"])' },
      ]);
      expect(lastLine(tcp?.stderr ?? '')).toBe('PermissionError: [Errno 63] Operation not permitted');
      expect(http?.status).toBe('error');
      expect(http?.stderr).toMatch(/Operation not permitted/);
      expect(system?.status).toBe('ok');
      expect(system?.stdout).not.toBe('0\n');
      expect(subprocess?.status).toBe('error');
      expect(lastLine(subprocess?.stderr ?? '')).toMatch(/OSError: .*does not support processes/);
    }, 300_000);

    it("fetches nothing through Pyodide's HTTP helpers and sees only its own in-memory files", async () => {
      const [openUrl, files] = await runMany([
        { code: `from pyodide.http import open_url\nprint(open_url("${served.origin}/").read())` },
        { code: 'import os\nprint(sorted(os.listdir("/")))' },
      ]);
      expect(openUrl?.status).toBe('error');
      expect(openUrl?.stdout).toBe('');
      expect(files).toMatchObject({ status: 'ok', stdout: "['dev', 'home', 'lib', 'proc', 'tmp']\n" });
    }, 300_000);

    it("names the file when one of Pyodide's files fails to load", async () => {
      const message = await page.evaluate(async () => {
        const globals = globalThis as unknown as BrowserGlobals;
        try {
          await globals.taorlSandbox.createSandbox({ backend: 'pyodide', indexURL: '/broken/', workers: 1 });
          return 'created';
        } catch (error) {
          return (error as Error).message;
        }
      });
      expect(message).toContain(`${served.origin}/broken/${MISSING_ASSET} did not load (HTTP 404)`);
    }, 300_000);

    it('says what the browser lacks (WebAssembly, workers) and refuses bad options, naming the field', async () => {
      const { page: bare } = await served.open();
      try {
        const messages = await bare.evaluate(async () => {
          const { createSandbox } = (globalThis as unknown as BrowserGlobals).taorlSandbox;
          const attempt = async (options: object) => {
            try {
              await createSandbox(options as Parameters<typeof createSandbox>[0]);
              return 'created';
            } catch (error) {
              return (error as Error).message;
            }
          };
          const badBackend = await attempt({ backend: 'local', indexURL: '/pyodide/' });
          const noIndex = await attempt({ backend: 'pyodide' });
          const misspelled = await attempt({ backend: 'pyodide', indexURL: '/pyodide/', wrkers: 2 });
          const scope = globalThis as { Worker?: unknown; WebAssembly?: unknown };
          scope.Worker = undefined;
          const noWorker = await attempt({ backend: 'pyodide', indexURL: '/pyodide/' });
          scope.WebAssembly = undefined;
          const noWasm = await attempt({ backend: 'pyodide', indexURL: '/pyodide/' });
          return { badBackend, noIndex, misspelled, noWorker, noWasm };
        });
        expect(messages.badBackend).toMatch(
          /backend must be 'pyodide' \(the one backend that runs in a browser/,
        );
        expect(messages.noIndex).toMatch(/indexURL must be the URL of the folder where the page serves/);
        expect(messages.misspelled).toMatch(/unknown option "wrkers"/);
        expect(messages.noWorker).toMatch(/this browser lacks Web Workers/);
        expect(messages.noWasm).toMatch(/this browser lacks WebAssembly/);
      } finally {
        await bare.close();
      }
    }, 300_000);
  },
);
