import type { TestVerdict } from './judge';

const PROGRAM_VERDICTS: Readonly<Record<string, TestVerdict>> = {
  error: 'runtime_error',
  killed: 'runtime_error',
  timeout: 'time_limit',
  memory: 'memory_limit',
  output_limit: 'output_limit',
};

/** What a sandbox run reports beyond its output. */
export interface RunReport {
  readonly status: string;
  readonly stderr: string;
  readonly sandboxMessage?: string;
}

/**
 * The verdict of a run that did not end `ok`, and what to report: the status, the sandbox's own message (why an
 * infrastructure failure happened) and the end of stderr. A status the program cannot cause is `infra_error`.
 */
export function failedRun(run: RunReport): { verdict: TestVerdict; message: string } {
  const parts = [run.status, run.sandboxMessage ?? '', tail(run.stderr)].filter((part) => part !== '');
  return { verdict: PROGRAM_VERDICTS[run.status] ?? 'infra_error', message: parts.join(': ') };
}

function tail(text: string, length = 300): string {
  const trimmed = text.trimEnd();
  return trimmed.length <= length ? trimmed : `...${trimmed.slice(-length)}`;
}
