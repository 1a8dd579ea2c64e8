import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkSandboxOptions,
  createSandbox,
  type ExecRequest,
  type ExecResult,
  registerSandboxBackend,
  type Sandbox,
  sandboxBackendNames,
} from '../src/index';

/** A backend that answers every request with a fixed reply, as a test double of a remote service would. */
function replyingSandbox(backend: string, reply: string): Sandbox {
  const run = async (_request: ExecRequest): Promise<ExecResult> => ({
    status: 'ok',
    exitCode: 0,
    signal: null,
    stdout: reply,
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 0,
  });
  return { backend, run, runMany: (requests) => Promise.all(requests.map(run)), close: async () => {} };
}

describe('sandbox backend registry', () => {
  it("checks a user backend's options with its zod schema, in checkSandboxOptions and createSandbox", async () => {
    const schema = z.strictObject({ backend: z.string(), reply: z.string().default('ok') });
    registerSandboxBackend('replying', async ({ reply }) => replyingSandbox('replying', reply), { schema });
    expect(sandboxBackendNames()).toEqual(['local', 'sandboxfusion', 'pyodide', 'replying']);
    const sandbox = await createSandbox({ backend: 'replying', reply: 'pong' });
    expect((await sandbox.run({ code: 'print(1)' })).stdout).toBe('pong');
    expect(() => checkSandboxOptions({ backend: 'replying', reply: 3 })).toThrow(
      /^sandbox backend "replying": option 'reply': /,
    );
    await expect(createSandbox({ backend: 'replying', rply: 'x' })).rejects.toThrow(
      /sandbox backend "replying": .*rply/,
    );
  });

  it('replaces a backend, a built-in one too, only with { replace: true }', async () => {
    const factory = async () => replyingSandbox('local', 'not python');
    expect(() => registerSandboxBackend('local', factory)).toThrow(
      'sandbox backend "local" is already registered; pass { replace: true } to replace it',
    );
    registerSandboxBackend('replaced', factory);
    registerSandboxBackend('replaced', async () => replyingSandbox('replaced', 'second'), { replace: true });
    expect((await (await createSandbox({ backend: 'replaced' })).run({ code: '' })).stdout).toBe('second');
  });

  it('names the close and the registered backends for an unknown one', async () => {
    await expect(createSandbox({ backend: 'locl' })).rejects.toThrow(
      /^unknown sandbox backend "locl" \(did you mean "local"\?\); registered: local, sandboxfusion/,
    );
  });
});
