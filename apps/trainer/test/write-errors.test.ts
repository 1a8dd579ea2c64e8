import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import { createTinyPolicy } from '@taorl/model/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsWriter, readMetrics } from '../src/report/metrics.js';
import { writeFileAtomic } from '../src/util/atomic-write.js';

// Issue 39 item 12: a full disk names the file being written. /dev/full answers every write with ENOSPC, as a full
// disk does; a link to it stands in for the file (test/disk-full.test.ts fills a real, tiny file system).

const root = mkdtempSync(join(tmpdir(), 'taorl-write-errors-'));
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const enospc = (path: string) => new RegExp(`^${path}: ENOSPC: no space left on device, write$`);

describe('write errors name the file', () => {
  it('writeFileAtomic: the target, and the temp file is gone', () => {
    const path = join(root, 'run-config.json');
    const temp = `${path}.tmp-${process.pid}`;
    symlinkSync('/dev/full', temp);
    const error = (() => {
      try {
        writeFileAtomic(path, '{"config": {}}\n');
      } catch (caught) {
        return caught as NodeJS.ErrnoException;
      }
    })();
    expect(error?.message).toMatch(enospc(path));
    expect(error?.code).toBe('ENOSPC');
    expect(existsSync(path)).toBe(false);
    expect(lstatSync(temp, { throwIfNoEntry: false })).toBeUndefined();
  });

  it('MetricsWriter.write: metrics.jsonl', () => {
    const path = join(root, 'metrics.jsonl');
    symlinkSync('/dev/full', path);
    const writer = new MetricsWriter(path);
    expect(() => writer.write({ phase: 'eval', step: 0 } as never)).toThrow(enospc(path));
  });

  // Issue 46 finding 3: reading /dev/zero back never ended (the process grew to gigabytes).
  it('readMetrics: refuses a metrics.jsonl that is not a regular file, naming it', () => {
    const path = join(root, 'zero-metrics.jsonl');
    symlinkSync('/dev/zero', path);
    expect(() => readMetrics(path)).toThrow(`${path} is a symbolic link, not a regular file`);
  });

  it("Policy.save (a run's policy/): the safetensors file", async () => {
    const dir = join(root, 'policy');
    mkdirSync(dir);
    symlinkSync('/dev/full', join(dir, 'model.safetensors'));
    const policy = createTinyPolicy({ vocabSize: 64, seed: 1 });
    try {
      await expect(policy.save(dir)).rejects.toThrow(enospc(join(dir, 'model.safetensors')));
    } finally {
      policy.dispose();
    }
  });
});
