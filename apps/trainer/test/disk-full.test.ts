import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tinyRunOverrides } from './support/tiny-run.js';

// Issue 39 item 12 end to end: `taorl rl` into a file system too small for its run folder. Mounting one needs root
// (CAP_SYS_ADMIN), as CI has; elsewhere test/write-errors.test.ts covers the same writes through /dev/full.

const cli = new URL('../src/cli.ts', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'taorl-disk-full-'));
const mountPoint = join(root, 'tiny');
mkdirSync(mountPoint);

function mountTiny(): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96k', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const mounted = mountTiny();

afterAll(() => {
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(root, { recursive: true, force: true });
});

describe('a full disk', () => {
  it.skipIf(!mounted)(
    'ends `taorl rl` with an error naming the file it was writing',
    async () => {
      const out = join(mountPoint, 'run');
      const args = ['rl', '--out', out, ...tinyRunOverrides.flatMap((o) => ['--set', o])];
      const child = spawn(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', cli, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`taorl rl: ${out}/[^:\\s]+: ENOSPC: no space left on device, write`));
    },
    180_000,
  );
});
