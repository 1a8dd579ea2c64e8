import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The built package (pnpm build): the CommonJS and the ESM build are two copies of the code in one process.
const require = createRequire(import.meta.url);

describe('one backend and one tool format registry per process', () => {
  it('finds from the ESM build the plug-ins registered through the CommonJS build', async () => {
    require('./fixtures/register-from-cjs.cjs');
    const cjs = require('../dist/index.cjs') as typeof import('../dist/index.cjs');
    const esm = await import('../dist/index.js');
    const sandbox = await esm.createSandbox({ backend: 'echo-from-cjs', reply: 'pong' });
    expect(sandbox.backend).toBe('echo-from-cjs');
    expect((await sandbox.run({ code: 'print(1)' })).stdout).toBe('pong');
    await sandbox.close();
    expect(() => esm.checkSandboxOptions({ backend: 'echo-from-cjs', reply: 1 })).toThrow(
      'sandbox backend "echo-from-cjs": option \'reply\' must be a string',
    );
    expect(esm.getToolFormat('markdown-from-cjs').stopStrings).toEqual(esm.markdownFormat.stopStrings);
    // Each build registers the built-ins where they are defined; the second build finds them and adds none.
    expect(esm.sandboxBackendNames()).toEqual(cjs.sandboxBackendNames());
    expect(esm.toolFormatNames()).toEqual(cjs.toolFormatNames());
    expect(esm.toolFormatNames().filter((name) => name === 'markdown')).toHaveLength(1);
  });
});
