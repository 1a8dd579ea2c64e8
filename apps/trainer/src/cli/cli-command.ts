/** Where the CLI writes; injectable so tests capture output without spawning a process. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

/** One flag of a command: what its usage and the CLI reference (docs/reference/cli.md) show. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  doc: string;
  /** What applies when the flag is left out, in words (a value, or what is used instead). */
  default?: string;
}

/**
 * One `taorl` subcommand. Its own file, apart from the entry (run-cli.ts) that lists the commands, so the
 * commands' modules import it without importing the entry back. Its flags are the one description of its
 * options: the parser, `--help` and the CLI reference all read them.
 */
export interface CliCommand {
  summary: string;
  /** The command's own flags (--help and, with `configFlags`, the config flags come on top). */
  flags: Readonly<Record<string, FlagSpec>>;
  /** Whether it reads a trainer config: --config, --set, --plugin and --out. */
  configFlags: boolean;
  /** The shipped preset (apps/trainer/configs/<preset>.yaml) it reads when --config is left out. */
  preset?: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}
