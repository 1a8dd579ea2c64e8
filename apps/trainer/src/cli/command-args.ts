import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type LoadedConfig, loadConfig, readConfigFile } from '../config/load-config.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { loadPluginModules, type PluginRequest } from '../plugins/plugin-modules.js';
import type { CliCommand, FlagSpec } from './cli-command.js';

/** A usage error: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ParsedCommand {
  config: TrainerConfig;
  /** The config file (or '(defaults)'), for error messages. */
  source: string;
  /** The command-specific flags as given (strings or booleans). */
  flags: Record<string, string | boolean | undefined>;
  /** The `--set` assignments, then `outDir` from --out, as applied (to hand on to child runs). */
  overrides: string[];
  /** The files the `--plugin` flags resolved to (to hand on to child runs; `plugins:` travels in the config). */
  pluginFiles: string[];
  help: boolean;
}

/** The flags of every command that reads a trainer config; --config defaults to the command's preset. */
function configFlags(preset: string | undefined): Record<string, FlagSpec> {
  return {
    config: {
      type: 'string',
      short: 'c',
      doc: "YAML config (see apps/trainer/configs/), or a run's <outDir>/run-config.json to run its config again",
      default: preset === undefined ? "every field's default" : `apps/trainer/configs/${preset}.yaml`,
    },
    set: { type: 'string', doc: 'override one field, e.g. --set rl.learningRate=1e-4 (repeatable)' },
    plugin: {
      type: 'string',
      doc: 'import a plug-in module first, a path or a package name from the working directory (repeatable)',
    },
    out: { type: 'string', short: 'o', doc: 'output folder (overrides outDir)' },
  };
}

const helpFlag: Readonly<Record<string, FlagSpec>> = {
  help: { type: 'boolean', short: 'h', doc: 'show this help' },
};

/** Every flag a command takes, in the order its usage lists them. */
export function commandFlags(
  command: Pick<CliCommand, 'flags' | 'configFlags' | 'preset'>,
): Record<string, FlagSpec> {
  return { ...(command.configFlags ? configFlags(command.preset) : {}), ...helpFlag, ...command.flags };
}

/** A flag's description with its default, as the usage and the CLI reference show it. */
export const flagDoc = (spec: FlagSpec): string =>
  spec.default === undefined ? spec.doc : `${spec.doc} (default: ${spec.default})`;

/** The usage's lines for `flags`, one a flag. */
export function flagRows(flags: Readonly<Record<string, FlagSpec>>): string[] {
  return Object.entries(flags).map(([flag, spec]) => {
    const left = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${flag}${spec.type === 'string' ? ' <value>' : ''}`;
    return `  ${left.padEnd(26)} ${flagDoc(spec)}`;
  });
}

/** The usage text of a command: synopsis plus one line per flag. */
export function commandUsage(name: string, command: Omit<CliCommand, 'run'>): string {
  const rows = flagRows(commandFlags(command));
  return [`Usage: taorl ${name} [options]`, '', command.summary, '', 'Options:', ...rows, ''].join('\n');
}

/** Repeatable flags: every value is kept, in order. */
const repeatable = new Set(['set', 'plugin']);

/** Flags as node:util parseArgs options (their defaults are words for the usage, not values to parse). */
export function parseArgsOptions(flags: Readonly<Record<string, FlagSpec>>) {
  return Object.fromEntries(
    Object.entries(flags).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.short === undefined ? {} : { short: spec.short }),
        multiple: repeatable.has(name),
      },
    ]),
  );
}

/**
 * The plug-in modules of a command: the config's `plugins` (from the config file's folder; the working directory
 * without one), or for a run record the files its run loaded; then the `--plugin` flags (from the working
 * directory).
 */
function pluginRequests(
  { config, recordedPlugins }: LoadedConfig,
  configPath: string | undefined,
  flags: readonly string[],
) {
  const cwd = process.cwd();
  const source = configPath ?? '(defaults)';
  const fromConfig =
    recordedPlugins === null
      ? config.plugins.map(
          (module, i): PluginRequest => ({
            module,
            from: configPath === undefined ? cwd : dirname(resolve(configPath)),
            source,
            field: `plugins[${i}]`,
          }),
        )
      : recordedPlugins.map(
          ({ module, path }, i): PluginRequest => ({ module, file: path, source, field: `plugins[${i}]` }),
        );
  const fromFlags = flags.map(
    (module): PluginRequest => ({ module, from: cwd, source: `--plugin ${module}`, field: 'plugin' }),
  );
  return { fromConfig, fromFlags };
}

/**
 * Parses a command's argv: unknown flags and stray positionals are usage errors; --config/--set/--out build the
 * validated TrainerConfig (a bad field is a ConfigError naming it), and the plug-in modules it names (`plugins`,
 * --plugin) are imported, so that every plug-in name in it resolves. `defaultConfig` is the preset a command uses
 * when --config is omitted.
 */
export async function parseCommand(
  args: readonly string[],
  flags: Readonly<Record<string, FlagSpec>>,
  defaultConfig?: string,
): Promise<ParsedCommand> {
  const options = parseArgsOptions(commandFlags({ flags, configFlags: true }));
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) {
    const config = loadConfig(undefined);
    return { config, source: '(defaults)', flags: {}, overrides: [], pluginFiles: [], help: true };
  }
  const overrides = [...((values.set as string[] | undefined) ?? [])];
  if (typeof values.out === 'string') overrides.push(`outDir=${JSON.stringify(values.out)}`);
  const configPath = typeof values.config === 'string' ? values.config : defaultConfig;
  const loaded = readConfigFile(configPath, overrides);
  const { config } = loaded;
  const warn = (notice: string) => process.stderr.write(`warning: ${notice}\n`);
  const { fromConfig, fromFlags } = pluginRequests(loaded, configPath, (values.plugin as string[]) ?? []);
  const timeoutMs = config.pluginLoadTimeoutMs;
  await loadPluginModules(fromConfig, warn, timeoutMs);
  const pluginFiles = (await loadPluginModules(fromFlags, warn, timeoutMs)).map((plugin) => plugin.path);
  const own: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(flags)) own[name] = values[name] as string | boolean | undefined;
  return { config, source: configPath ?? '(defaults)', flags: own, overrides, pluginFiles, help: false };
}
