/** Where the CLI writes; injectable so tests capture output without spawning a process. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/**
 * One `taorl` subcommand. Its own file, apart from the entry (run-cli.ts) that lists the commands, so the
 * commands' modules import it without importing the entry back.
 */
export interface CliCommand {
  summary: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}
