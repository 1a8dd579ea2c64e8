import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type LocalSandbox, type LocalSandboxOptions } from '../src/index';
import { isRoot, privateUidBase, processesOfUids } from './helpers';

const MISSING_BWRAP = '/nonexistent/bwrap';
const opened: LocalSandbox[] = [];

async function open(options: LocalSandboxOptions): Promise<LocalSandbox> {
  const sandbox = await createSandbox(options);
  opened.push(sandbox);
  return sandbox;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((sandbox) => sandbox.close()));
});

function captureWarnings(): { codes: string[]; stop: () => void } {
  const codes: string[] = [];
  const listener = (warning: Error & { code?: string }) => codes.push(warning.code ?? warning.name);
  process.on('warning', listener);
  return { codes, stop: () => process.off('warning', listener) };
}

describe('isolation policy', () => {
  it('refuses to start without bubblewrap unless the caller opts in', async () => {
    await expect(createSandbox({ workers: 1, bwrapPath: MISSING_BWRAP })).rejects.toThrow(
      /refusing to start without isolation: cannot run \/nonexistent\/bwrap.*isolation: 'preferred' or 'none'/s,
    );
  });

  it.skipIf(!isRoot)(
    'refuses a bubblewrap that leaves the worker more capabilities than it asked for',
    async () => {
      // A bwrap that ignores --cap-drop, as bubblewrap 0.8 does when asked to add a capability the host lacks.
      const dir = mkdtempSync(join(tmpdir(), 'taorl-bwrap-'));
      const wrapper = join(dir, 'bwrap');
      writeFileSync(
        wrapper,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's array expansion, not a template
        '#!/bin/bash\nargs=()\nwhile [ $# -gt 0 ]; do\n  if [ "$1" = --cap-drop ]; then shift 2; continue; fi\n  args+=("$1")\n  shift\ndone\nexec bwrap "${args[@]}"\n',
      );
      chmodSync(wrapper, 0o755);
      try {
        await expect(createSandbox({ workers: 1, bwrapPath: wrapper })).rejects.toThrow(
          /refusing to start without isolation: .*left the sandbox capabilities it was told to drop/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("falls back to unisolated execution with 'preferred', warning loudly", async () => {
    const warnings = captureWarnings();
    try {
      const sandbox = await open({ workers: 1, bwrapPath: MISSING_BWRAP, isolation: 'preferred' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.codes).toContain('TAORL_SANDBOX_UNISOLATED');
      expect(sandbox.isolation).toBe('none');
      const result = await sandbox.run({
        code: 'import sympy\nprint(sympy.Rational(1, 3) + sympy.Rational(1, 6))',
      });
      expect(result).toMatchObject({ status: 'ok', stdout: '1/2\n' });
    } finally {
      warnings.stop();
    }
  });

  it("'none' still enforces limits, cleans scratch and kills leftovers", async () => {
    const warnings = captureWarnings();
    const uidBase = privateUidBase();
    try {
      const sandbox = await open({ workers: 1, isolation: 'none', uidBase, limits: { timeoutMs: 1000 } });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.codes).toContain('TAORL_SANDBOX_UNISOLATED');
      expect((await sandbox.run({ code: 'while True: pass' })).status).toBe('timeout');
      expect((await sandbox.run({ code: 'bytearray(10 * 1024**3)' })).status).toBe('memory');
      const first = await sandbox.run({
        code: 'import os, time\nopen("left.txt", "w").write("x")\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\nprint(len(os.listdir(".")))',
      });
      expect(first).toMatchObject({ status: 'ok', stdout: '1\n' });
      if (isRoot) expect(processesOfUids(uidBase, 1)).toEqual([]);
      expect((await sandbox.run({ code: 'import os\nprint(os.listdir("."))' })).stdout).toBe('[]\n');
      // A locked directory and a link to a host directory: the wipe removes both and never follows the link.
      const outside = mkdtempSync(join(tmpdir(), 'taorl-outside-'));
      writeFileSync(join(outside, 'keep.txt'), 'host data');
      chmodSync(outside, 0o755);
      try {
        const locking = await sandbox.run({
          code: `import os\nos.makedirs("locked/inner")\nos.chmod("locked", 0)\nos.symlink("${outside}", "link")`,
        });
        expect(locking.status).toBe('ok');
        expect((await sandbox.run({ code: 'import os\nprint(os.listdir("."))' })).stdout).toBe('[]\n');
        expect(statSync(outside).mode & 0o777).toBe(0o755);
        expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('host data');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    } finally {
      warnings.stop();
    }
  });

  it("'none': closing the sandbox leaves none of its processes behind", async () => {
    const warnings = captureWarnings();
    try {
      const sandbox = await createSandbox({ workers: 1, isolation: 'none' });
      expect((await sandbox.run({ code: 'print(1)' })).stdout).toBe('1\n');
      // Unisolated, /tmp is the host's: an absolute path of a request has no place of the run's to go.
      await expect(sandbox.run({ code: '', fetchFiles: ['/tmp/x'] })).rejects.toThrow(
        /ExecRequest\.fetchFiles\[0\] "\/tmp\/x" is absolute, and this sandbox has no directory of the run's there \(unisolated/,
      );
      // Every process of the worker (the worker, its zygote, a prepared child) carries its command line.
      const [worker] = sandbox.workerPids();
      const commandLine = readFileSync(`/proc/${worker}/cmdline`, 'utf8');
      const ofThisSandbox = () =>
        readdirSync('/proc').filter((entry) => {
          try {
            return /^\d+$/.test(entry) && readFileSync(`/proc/${entry}/cmdline`, 'utf8') === commandLine;
          } catch {
            return false;
          }
        });
      expect(ofThisSandbox().length).toBeGreaterThan(1);
      await sandbox.close();
      for (let tries = 0; ofThisSandbox().length > 0 && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(ofThisSandbox()).toEqual([]);
    } finally {
      warnings.stop();
    }
  });

  it("mode 'spawn' starts a fresh interpreter per call (the baseline) with the same results", async () => {
    const sandbox = await open({ workers: 1, mode: 'spawn' });
    expect(sandbox.workerPids()).toEqual([]);
    const result = await sandbox.run({ code: 'import sympy\nprint(sympy.factorint(360))' });
    expect(result).toMatchObject({ status: 'ok', stdout: '{2: 3, 3: 2, 5: 1}\n' });
    expect((await sandbox.run({ code: 'import sys\nprint("numpy" in sys.modules)' })).stdout).toBe('False\n');
  });

  it('rejects an unknown isolation mode', async () => {
    await expect(createSandbox({ isolation: 'maybe' as 'none' })).rejects.toThrow(/isolation must be/);
  });
});
