import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkSandboxOptions, createSandbox, localIsolationProblem } from '../src/index';

// What the trainer asks before it gives way to the pyodide backend: why the local backend cannot isolate here.
const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('localIsolationProblem', () => {
  it('names a missing bubblewrap', async () => {
    expect(await localIsolationProblem({ bwrapPath: '/nonexistent/bwrap' })).toMatch(
      /^cannot run \/nonexistent\/bwrap: spawn \/nonexistent\/bwrap ENOENT/,
    );
  });

  it('names a missing interpreter, which the options check leaves to the start', async () => {
    expect(await localIsolationProblem({ pythonPath: '/no/python3' })).toMatch(
      /pythonPath must be an executable file, got "\/no\/python3"/,
    );
    expect(() => checkSandboxOptions({ pythonPath: '/no/python3' })).not.toThrow();
    await expect(createSandbox({ pythonPath: '/no/python3' })).rejects.toThrow(
      /pythonPath must be an executable/,
    );
  });

  it.skipIf(!hasBwrap)('is null where bubblewrap works', async () => {
    expect(await localIsolationProblem()).toBeNull();
  });
});
