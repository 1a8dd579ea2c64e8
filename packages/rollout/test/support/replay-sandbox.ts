import type { ExecRequest, ExecResult, Sandbox } from '@taorl/sandbox';

/**
 * A sandbox that answers each call with the next recorded output (a fixture's tool messages), printing it as a
 * program would (a final line break added). It records the code it was asked to run.
 */
export class ReplaySandbox implements Sandbox {
  readonly backend = 'replay';
  readonly codes: string[] = [];
  #next = 0;

  constructor(private readonly outputs: readonly string[]) {}

  async run(request: ExecRequest): Promise<ExecResult> {
    this.codes.push(request.code);
    const output = this.outputs[this.#next++];
    if (output === undefined) throw new Error(`ReplaySandbox: no output recorded for call ${this.#next}`);
    return {
      status: 'ok',
      exitCode: 0,
      signal: null,
      stdout: output === '' ? '' : `${output}\n`,
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      durationMs: 1,
    };
  }

  runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]> {
    return Promise.all(requests.map((request) => this.run(request)));
  }

  async close(): Promise<void> {}
}
