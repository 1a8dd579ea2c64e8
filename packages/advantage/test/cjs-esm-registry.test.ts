import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The built package (pnpm build): the CommonJS and the ESM build are two copies of the code in one process.
const require = createRequire(import.meta.url);

describe('one estimator and one shaper registry per process', () => {
  it('finds from the ESM build the plug-ins registered through the CommonJS build', async () => {
    require('./fixtures/register-from-cjs.cjs');
    const cjs = require('../dist/index.cjs') as typeof import('../dist/index.cjs');
    const esm = await import('../dist/index.js');
    const estimator = esm.getAdvantageEstimator('max-baseline-from-cjs');
    const groups = [Int32Array.from([0, 1]), Int32Array.from([2, 3])];
    expect(Array.from(estimator.estimate(Float64Array.from([1, 3, 2, 2]), groups))).toEqual([-2, 0, 0, 0]);
    expect(esm.getEntropyShaper('none-from-cjs').name).toBe('none');
    // Each build registers the built-ins where they are defined; the second build finds them and adds none.
    expect(esm.advantageEstimatorNames()).toEqual(cjs.advantageEstimatorNames());
    expect(esm.entropyShaperNames()).toEqual(cjs.entropyShaperNames());
    expect(esm.entropyShaperNames().filter((name) => name === 'tao')).toHaveLength(1);
  });
});
