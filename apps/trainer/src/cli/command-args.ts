import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import type { TrainerConfig } from '../config/trainer-config.js';

/** A usage error: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** One command-specific flag; every command also takes --config, --set, --out and --help. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Shown in the usage text. */
  doc: string;
}

export interface ParsedCommand {
  config: TrainerConfig;
  /** The config file (or '(defaults)'), for error messages. */
  source: string;
  /** The command-specific flags as given (strings or booleans). */
  flags: Record<string, string | boolean | undefined>;
  /** The `--set` assignments, then `outDir` from --out, as applied (to hand on to child runs). */
  overrides: string[];
  help: boolean;
}

const commonFlags: Record<string, FlagSpec> = {
  config: {
    type: 'string',
    short: 'c',
    doc: 'YAML config (see apps/trainer/configs/); defaults when omitted',
  },
  set: { type: 'string', doc: 'override one field, e.g. --set rl.learningRate=1e-4 (repeatable)' },
  out: { type: 'string', short: 'o', doc: 'output folder (overrides outDir)' },
  help: { type: 'boolean', short: 'h', doc: 'show this help' },
};

/** The usage text of a command: synopsis plus one line per flag. */
export function commandUsage(name: string, summary: string, flags: Record<string, FlagSpec>): string {
  const all = { ...commonFlags, ...flags };
  const rows = Object.entries(all).map(([flag, spec]) => {
    const left = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${flag}${spec.type === 'string' ? ' <value>' : ''}`;
    return `  ${left.padEnd(26)} ${spec.doc}`;
  });
  return [`Usage: taorl ${name} [options]`, '', summary, '', 'Options:', ...rows, ''].join('\n');
}

/**
 * Parses a command's argv: unknown flags and stray positionals are usage errors; --config/--set/--out build the
 * validated TrainerConfig (a bad field is a ConfigError naming it). `defaultConfig` is the preset a command uses
 * when --config is omitted.
 */
export function parseCommand(
  args: readonly string[],
  flags: Record<string, FlagSpec>,
  defaultConfig?: string,
): ParsedCommand {
  const options = Object.fromEntries(
    Object.entries({ ...commonFlags, ...flags }).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.short === undefined ? {} : { short: spec.short }),
        multiple: name === 'set',
      },
    ]),
  );
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true)
    return { config: loadConfig(undefined), source: '(defaults)', flags: {}, overrides: [], help: true };
  const overrides = [...((values.set as string[] | undefined) ?? [])];
  if (typeof values.out === 'string') overrides.push(`outDir=${JSON.stringify(values.out)}`);
  const configPath = typeof values.config === 'string' ? values.config : defaultConfig;
  const config = loadConfig(configPath, overrides);
  const own: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(flags)) own[name] = values[name] as string | boolean | undefined;
  return { config, source: configPath ?? '(defaults)', flags: own, overrides, help: false };
}
