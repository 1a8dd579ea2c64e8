import type { CliIO } from '../../src/cli/cli-command.js';

/** A CliIO that records what a command prints, for in-process CLI tests. */
export function capture(): { io: CliIO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}
