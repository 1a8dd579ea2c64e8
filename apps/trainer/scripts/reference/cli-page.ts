/**
 * docs/reference/cli.md: every command and flag of `taorl` and `taorl-sandbox`, read from the tables their parsers
 * and their --help read, so that the page cannot drift from what the commands take.
 */
// The CLIs' tables and texts are not part of their packages' APIs (only their bins read them), hence the paths.
import { usage as evalUsage } from '../../../../packages/eval/src/cli/run.js';
import {
  type SandboxCliFlag,
  type SandboxCommandName,
  sandboxCommands,
  sandboxFlagEntries,
  sandboxFlagSyntax,
} from '../../../../packages/sandbox/src/cli-spec.js';
import type { CliCommand, FlagSpec } from '../../src/cli/cli-command.js';
import { commandFlags } from '../../src/cli/command-args.js';
import { commands, globalFlags } from '../../src/cli/run-cli.js';
import { cell, code, generatedNote, table } from './markdown.js';

const FLAG_HEADERS = ['Flag', 'Value', 'Default', 'Description'];

function flagRow(name: string, spec: FlagSpec): string[] {
  return [
    code(`${spec.short === undefined ? '' : `-${spec.short}, `}--${name}`),
    spec.type === 'string' ? 'value' : 'switch',
    spec.default === undefined ? '' : cell(spec.default),
    cell(spec.doc),
  ];
}

const flagTable = (flags: Readonly<Record<string, FlagSpec>>): string =>
  table(
    FLAG_HEADERS,
    Object.entries(flags).map(([name, spec]) => flagRow(name, spec)),
  );

/** The flags every config-reading command takes, shown once (with --config's default as no preset gives it). */
function configFlagsSection(): string {
  const shared = commandFlags({ flags: {}, configFlags: true });
  return [
    '### Config flags',
    '',
    'Every command but `serve` reads a trainer config ([config reference](config.md)) and takes these; a command ' +
      'with a preset reads that preset when `--config` is left out.',
    '',
    flagTable(shared),
  ].join('\n');
}

function commandSection(name: string, command: CliCommand): string {
  const lines = [`### \`taorl ${name}\``, '', `${cell(command.summary)}.`, ''];
  if (command.configFlags) {
    const preset =
      command.preset === undefined ? '' : `; preset: apps/trainer/configs/${command.preset}.yaml`;
    lines.push(`Takes the [config flags](#config-flags)${preset}.`, '');
  }
  if (Object.keys(command.flags).length === 0) lines.push('No flags of its own.');
  else lines.push(flagTable(command.flags));
  return lines.join('\n');
}

function sandboxFlagRow(name: string, flag: SandboxCliFlag): string[] {
  return [
    code(sandboxFlagSyntax(name, flag)),
    flag.commands.map((command) => code(command)).join(', '),
    flag.default === undefined ? '' : cell(flag.default),
    cell(flag.doc),
  ];
}

function sandboxSection(): string {
  const names = Object.keys(sandboxCommands) as SandboxCommandName[];
  return [
    '## `taorl-sandbox` (@taorl/sandbox)',
    '',
    ...names.flatMap((name) => [
      `- \`taorl-sandbox ${sandboxCommands[name].synopsis}\`: ${cell(sandboxCommands[name].summary)}`,
    ]),
    '',
    'A flag given to a command that does not take it is a usage error (exit code 2).',
    '',
    table(
      ['Flag', 'Commands', 'Default', 'Description'],
      sandboxFlagEntries().map(([name, flag]) => sandboxFlagRow(name, flag)),
    ),
  ].join('\n');
}

/** taorl-eval has no flag table: its usage text, as `taorl-eval` without a command prints it. */
function evalSection(): string {
  return ['## `taorl-eval` (@taorl/eval)', '', '```text', evalUsage.trimEnd(), '```'].join('\n');
}

/** The page, and how many commands and flags it lists (for the report of `pnpm docs:reference`). */
export function cliReference(): { text: string; commands: number; flags: number } {
  const trainerFlags =
    Object.keys(globalFlags).length +
    Object.keys(commandFlags({ flags: {}, configFlags: true })).length +
    [...commands.values()].reduce((sum, command) => sum + Object.keys(command.flags).length, 0);
  const sandboxFlags = sandboxFlagEntries().length;
  const text = [
    '# CLI reference',
    '',
    generatedNote(
      "the commands' flag tables (apps/trainer/src/cli/, packages/sandbox/src/cli-spec.ts) and taorl-eval's " +
        'usage text (packages/eval/src/cli/run.ts)',
    ),
    '',
    "Each table is what the command's `--help` prints. Exit codes of `taorl`: 0 on success, 2 on a usage or config " +
      'error, 1 on any other failure.',
    '',
    '## `taorl` (the trainer)',
    '',
    '`taorl <command> [options]`, from the repository: `pnpm taorl <command>` (after `pnpm build`). `taorl help` is ' +
      '`taorl --help`. Its own options:',
    '',
    flagTable(globalFlags),
    '',
    '| Command | What it does |',
    '|---|---|',
    ...[...commands].map(([name, command]) => `| [\`${name}\`](#taorl-${name}) | ${cell(command.summary)} |`),
    '',
    configFlagsSection(),
    '',
    ...[...commands].flatMap(([name, command]) => [commandSection(name, command), '']),
    sandboxSection(),
    '',
    evalSection(),
    '',
  ].join('\n');
  return {
    text,
    commands: commands.size + Object.keys(sandboxCommands).length,
    flags: trainerFlags + sandboxFlags,
  };
}
