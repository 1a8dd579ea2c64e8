import type { Sandbox } from './types';

/** The program a health check runs, and what it must print. */
const PROBE = { code: 'print(6 * 7)', stdout: '42\n' } as const;

/**
 * Runs one trivial program and throws unless it comes back `ok` with the expected output: call it before relying
 * on a sandbox (before the first training step), so that an unreachable server, a missing binary or package, or a
 * broken set-up fails at once, with the sandbox's own message (a SandboxFusion client's names the URL), instead of
 * turning every tool call of a run into a failure.
 */
export async function checkSandboxHealth(sandbox: Sandbox): Promise<void> {
  const result = await sandbox.run({ code: PROBE.code });
  if (result.status === 'ok' && result.stdout === PROBE.stdout) return;
  const detail =
    result.status === 'sandbox_error'
      ? (result.sandboxMessage ?? 'no message')
      : `stdout ${JSON.stringify(result.stdout.slice(0, 200))}, stderr ${JSON.stringify(result.stderr.slice(-500))}`;
  throw new Error(
    `the '${sandbox.backend}' sandbox failed its health check (${JSON.stringify(PROBE.code)} gave ${result.status}): ${detail}`,
  );
}
