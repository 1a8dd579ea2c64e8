import manifest from '../../package.json';
import { ConfigError } from '../config/config-error.js';
import type { CliCommand, CliIO, FlagSpec } from './cli-command.js';
import { flagRows, UsageError } from './command-args.js';
import { trainerCommands } from './commands.js';

const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Subcommands by name. */
export const commands = new Map<string, CliCommand>(trainerCommands());

/** The options `taorl` itself takes, before (or instead of) a command. */
export const globalFlags: Readonly<Record<string, FlagSpec>> = {
  help: { type: 'boolean', short: 'h', doc: 'show this help' },
  version: { type: 'boolean', short: 'v', doc: 'print the trainer version' },
  debug: {
    type: 'boolean',
    doc: 'before the command: print the stack trace of an unexpected error (or set TAORL_DEBUG=1)',
  },
};

export function usage(): string {
  const width = Math.max(4, ...[...commands.keys()].map((name) => name.length));
  const rows = [...commands].map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return [
    'Usage: taorl <command> [options]',
    '',
    'TAO-RL reference trainer: tool-integrated rollouts, SFT and RL for code-interpreter reasoning.',
    '',
    'Commands:',
    ...rows,
    `  ${'help'.padEnd(width)}  Show this help`,
    '',
    'Options:',
    ...flagRows(globalFlags),
    '',
  ].join('\n');
}

/** TAORL_DEBUG=1 (or true), like --debug, adds stack traces to unexpected errors. */
function debugFromEnv(): boolean {
  const value = process.env.TAORL_DEBUG;
  return value === '1' || value === 'true';
}

/**
 * An unexpected error as the user sees it: its message (and its causes'), since a remote server's refusal or a
 * missing file is not a bug in taorl; the stack trace only when debugging.
 */
function describeFailure(error: unknown, debug: boolean): string {
  if (!(error instanceof Error)) return String(error);
  if (debug) return error.stack ?? error.message;
  const causes: string[] = [];
  for (let cause = error.cause; cause !== undefined && causes.length < 5; ) {
    causes.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return [error.message, ...causes.map((message) => `caused by: ${message}`)].join('\n  ');
}

/**
 * Runs the CLI and returns the process exit code: 0 on success, 2 on a usage or config error, 1 on any other
 * failure, printed as its message (with `--debug` before the command or TAORL_DEBUG=1: its stack trace).
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const debug = argv[0] === '--debug' || debugFromEnv();
  const [name, ...rest] = argv[0] === '--debug' ? argv.slice(1) : argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(usage());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(`${manifest.version}\n`);
    return 0;
  }
  const command = commands.get(name);
  if (command === undefined) {
    io.err(`taorl: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`taorl ${name}: ${error.message}\nRun 'taorl ${name} --help' for its options.\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(`taorl ${name}: config error: ${error.message}\n`);
      return 2;
    }
    io.err(`taorl ${name}: ${describeFailure(error, debug)}\n`);
    return 1;
  }
}
