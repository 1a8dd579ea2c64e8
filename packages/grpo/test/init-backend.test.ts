import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { locateWasmFiles } from '../src/backend/wasm-paths';
import { initBackend } from '../src/index';

describe('initBackend', () => {
  it.each(['cpu', 'wasm'] as const)(
    'starts the %s backend when asked for it alone and computes with it',
    async (name) => {
      const report = await initBackend({ prefer: name });
      expect(report).toEqual({ backend: name, tfBackend: name, skipped: [] });
      expect(tf.getBackend()).toBe(name);
      const product = tf.matMul(tf.tensor2d([1, 2, 3, 4], [2, 2]), tf.tensor2d([5, 6, 7, 8], [2, 2]));
      expect(Array.from(await product.data())).toEqual([19, 22, 43, 50]);
      product.dispose();
    },
  );

  it('falls back along the default order past native packages that are not installed, reporting why', async () => {
    const report = await initBackend();
    expect(report.backend).toBe('wasm');
    expect(report.skipped.map((attempt) => attempt.backend)).toEqual(['node-gpu', 'node']);
    expect(report.skipped[0]?.reason).toContain('@tensorflow/tfjs-node-gpu is not installed');
    expect(report.skipped[1]?.reason).toContain('@tensorflow/tfjs-node is not installed');
  });

  it('throws naming every failed candidate when none starts', async () => {
    await expect(initBackend({ prefer: ['node-gpu', 'node'] })).rejects.toThrow(
      /no backend could start \(tried node-gpu, node\).*tfjs-node-gpu is not installed.*tfjs-node is not installed/,
    );
  });

  it('rejects unknown names and empty lists in options.prefer', async () => {
    await expect(initBackend({ prefer: 'webgpu' as never })).rejects.toThrow(/unknown backend "webgpu"/);
    await expect(initBackend({ prefer: [] })).rejects.toThrow(/empty list/);
  });
});

describe('locateWasmFiles', () => {
  it('finds the directory that holds the wasm binaries of the installed backend', async () => {
    const prefix = await locateWasmFiles();
    expect(prefix).toBeDefined();
    expect(existsSync(join(prefix!, 'tfjs-backend-wasm-simd.wasm'))).toBe(true);
  });
});
