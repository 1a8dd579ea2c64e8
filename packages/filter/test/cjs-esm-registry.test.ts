import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The built package (pnpm build): the CommonJS and the ESM build are two copies of the code in one process.
const require = createRequire(import.meta.url);

describe('one filter registry per process', () => {
  it('finds from the ESM build a filter registered through the CommonJS build', async () => {
    require('./fixtures/register-from-cjs.cjs');
    const cjs = require('../dist/index.cjs') as typeof import('../dist/index.cjs');
    const esm = await import('../dist/index.js');
    const filter = esm.getFilter('registered-from-cjs');
    const result = filter.apply([
      { groupId: 1, reward: 1, toolCalls: [] },
      { groupId: 1, reward: 0, toolCalls: [] },
    ]);
    expect(result.stats.dropped).toEqual({ 'no-reward': 1 });
    // Each build registers the built-ins where they are defined; the second build finds them and adds none.
    expect(esm.filterNames()).toEqual(cjs.filterNames());
    expect(esm.filterNames().filter((name) => name === 'tool-aware')).toHaveLength(1);
    expect(() => esm.registerFilter('registered-from-cjs', () => filter)).toThrow('already registered');
  });
});
