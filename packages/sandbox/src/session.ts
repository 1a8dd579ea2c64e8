import type { ExecRequest, ExecResult, Sandbox } from './types';

/**
 * Variables that persist across the tool calls of one trajectory without a long-lived interpreter: each call
 * replays the earlier successful cells silently before the new one (rStar2-Agent's SimJupyterTool approach).
 * Cost: call n re-runs the n - 1 earlier successes, so a trajectory of n calls executes O(n^2) cells in total.
 */
export class SandboxSession {
  private readonly history: string[] = [];

  constructor(private readonly sandbox: Sandbox) {}

  /** The successful cells so far, in order. */
  get cells(): readonly string[] {
    return this.history;
  }

  async run(request: ExecRequest | string): Promise<ExecResult> {
    const base = typeof request === 'string' ? { code: request } : request;
    const result = await this.sandbox.run({ ...base, session: [...(base.session ?? []), ...this.history] });
    if (result.status === 'ok') this.history.push(base.code);
    return result;
  }
}
