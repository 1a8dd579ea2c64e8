/**
 * The commands of `taorl-sandbox` and their flags: the one description that its parser, its usage text and the
 * CLI reference (docs/reference/cli.md) read.
 */

export type SandboxCommandName = 'run' | 'serve';

export interface SandboxCliCommand {
  /** What follows `taorl-sandbox` in the usage line. */
  readonly synopsis: string;
  readonly summary: string;
}

export interface SandboxCliFlag {
  readonly type: 'string' | 'boolean';
  /** The value's name in the usage (N, PATH, ...); string flags only. */
  readonly value?: string;
  readonly doc: string;
  /** What applies when the flag is left out, in words. */
  readonly default?: string;
  /** The commands that take it; another command refuses it. */
  readonly commands: readonly SandboxCommandName[];
  readonly short?: string;
}

export const sandboxCommands: Readonly<Record<SandboxCommandName, SandboxCliCommand>> = {
  run: {
    synopsis: 'run [file.py | -] [options]',
    summary:
      'runs the Python code of file.py (or standard input when the file is "-" or missing) in the local ' +
      'bubblewrap sandbox and prints the ExecResult as JSON. Exit code: 0 when the status is ok, 1 for any ' +
      'other status, 2 for a usage error.',
  },
  serve: {
    synopsis: 'serve [options]',
    summary:
      "serves a local sandbox pool behind SandboxFusion's API (POST /run_code, Python only), plus GET /health " +
      'and GET /metrics (Prometheus text), until SIGINT or SIGTERM, then shuts down gracefully.',
  },
};

const both: readonly SandboxCommandName[] = ['run', 'serve'];

export const sandboxCliFlags = {
  'memory-mb': {
    type: 'string',
    value: 'N',
    doc: 'address-space limit of a run (serve: runs take memory_limit_MB instead)',
    default: '1024',
    commands: both,
  },
  python: { type: 'string', value: 'PATH', doc: 'interpreter', default: '/usr/bin/python3', commands: both },
  isolation: {
    type: 'string',
    value: 'MODE',
    doc: 'required | preferred | none',
    default: 'required',
    commands: both,
  },
  'no-preload': { type: 'boolean', doc: 'do not import sympy and numpy first', commands: both },
  'timeout-ms': { type: 'string', value: 'N', doc: 'wall-clock limit', default: '10000', commands: ['run'] },
  'cpu-time-ms': {
    type: 'string',
    value: 'N',
    doc: 'CPU-time limit',
    default: 'the wall-clock limit',
    commands: ['run'],
  },
  stdin: { type: 'string', value: 'TEXT', doc: "text for the program's standard input", commands: ['run'] },
  host: {
    type: 'string',
    value: 'ADDR',
    doc: 'address to bind; any other than loopback needs a token',
    default: '127.0.0.1',
    commands: ['serve'],
  },
  port: { type: 'string', value: 'N', doc: 'port; 0 picks a free one', default: '8080', commands: ['serve'] },
  workers: {
    type: 'string',
    value: 'N',
    doc: 'pool size = runs at once, 1 to 256',
    default: 'the CPUs, at most 8',
    commands: ['serve'],
  },
  token: {
    type: 'string',
    value: 'T',
    doc:
      'require Authorization: Bearer T (or set TAORL_SANDBOX_TOKEN, which keeps it out of the process list); ' +
      'at least 16 characters',
    commands: ['serve'],
  },
  'insecure-no-token': {
    type: 'boolean',
    doc:
      "serve a non-loopback --host without a token (a private network whose clients cannot send one, as verl's): " +
      'anyone reaching the port runs code',
    commands: ['serve'],
  },
  'max-queue-mb': {
    type: 'string',
    value: 'N',
    doc:
      'memory requests not yet running may hold; past it a request gets 504 with Retry-After, which ' +
      'SandboxFusion clients retry',
    default: '1024',
    commands: ['serve'],
  },
  'max-queue': {
    type: 'string',
    value: 'N',
    doc: 'also at most N requests waiting for a worker, 0 to 1000000',
    default: 'no count',
    commands: ['serve'],
  },
  'queue-timeout-ms': {
    type: 'string',
    value: 'N',
    doc: 'longest wait for a worker before a 504',
    default: 'no limit',
    commands: ['serve'],
  },
  'heartbeat-ms': {
    type: 'string',
    value: 'N',
    doc:
      'a request unanswered this long gets its 200 head, then a space every N ms until its answer, so no ' +
      'client read timeout runs out while it waits; 0: answers come whole',
    default: '5000',
    commands: ['serve'],
  },
  'max-connections': {
    type: 'string',
    value: 'N',
    doc: 'connections held open at once, 1 to 16384',
    default: 'what the descriptor limit leaves beside the workers, at most 16384',
    commands: ['serve'],
  },
  'max-run-timeout-ms': {
    type: 'string',
    value: 'N',
    doc: 'the longest run_timeout a run gets; more, or none, is this',
    default: '60000',
    commands: ['serve'],
  },
  'max-memory-mb': {
    type: 'string',
    value: 'N',
    doc: 'the largest memory_limit_MB a run gets; more, or none, is this',
    default: '4096',
    commands: ['serve'],
  },
  'max-output-bytes': {
    type: 'string',
    value: 'N',
    doc: 'stdout and stderr kept per run, each',
    default: '1048576',
    commands: ['serve'],
  },
  'max-body-bytes': {
    type: 'string',
    value: 'N',
    doc: 'largest request body',
    default: '16777216',
    commands: ['serve'],
  },
  'grace-ms': {
    type: 'string',
    value: 'N',
    doc: 'on shutdown, how long running requests may finish',
    default: '30000',
    commands: ['serve'],
  },
  help: { type: 'boolean', short: 'h', doc: 'show this help', commands: both },
} satisfies Record<string, SandboxCliFlag>;

export type SandboxFlagName = keyof typeof sandboxCliFlags;

/** The flags as parsed: a string for a flag that takes a value, true for a switch given. */
export type SandboxFlagValues = {
  -readonly [N in SandboxFlagName]?: (typeof sandboxCliFlags)[N]['type'] extends 'boolean' ? boolean : string;
};

/** The flags in their order, each with its description. */
export const sandboxFlagEntries = (): [SandboxFlagName, SandboxCliFlag][] =>
  Object.entries(sandboxCliFlags) as [SandboxFlagName, SandboxCliFlag][];

/** A flag's description with its default, as the usage and the CLI reference show it. */
const sandboxFlagDoc = (flag: SandboxCliFlag): string =>
  flag.default === undefined ? flag.doc : `${flag.doc} (default: ${flag.default})`;

/** `--name VALUE`, as the usage and the CLI reference show a flag. */
export const sandboxFlagSyntax = (name: string, flag: SandboxCliFlag): string =>
  `${flag.short === undefined ? '' : `-${flag.short}, `}--${name}${flag.value === undefined ? '' : ` ${flag.value}`}`;

/** Words wrapped to lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

const WIDTH = 110;
const FLAG_COLUMN = 24;

function flagRows(names: readonly SandboxFlagName[]): string[] {
  return names.flatMap((name) => {
    const flag: SandboxCliFlag = sandboxCliFlags[name];
    const syntax = `  ${sandboxFlagSyntax(name, flag)}`;
    const [first = '', ...rest] = wrap(sandboxFlagDoc(flag), WIDTH - FLAG_COLUMN - 1);
    const head =
      syntax.length < FLAG_COLUMN
        ? [`${syntax.padEnd(FLAG_COLUMN)} ${first}`]
        : [syntax, `${' '.repeat(FLAG_COLUMN)} ${first}`];
    return [...head, ...rest.map((line) => `${' '.repeat(FLAG_COLUMN)} ${line}`)];
  });
}

/** The flags taken by exactly `commands`. */
function flagsOf(commands: readonly SandboxCommandName[]): SandboxFlagName[] {
  return sandboxFlagEntries()
    .filter(
      ([, flag]) =>
        flag.commands.length === commands.length && commands.every((c) => flag.commands.includes(c)),
    )
    .map(([name]) => name);
}

/** The usage text of `taorl-sandbox`. */
export function sandboxUsage(): string {
  const names = Object.keys(sandboxCommands) as SandboxCommandName[];
  return [
    ...names.map(
      (name, i) => `${i === 0 ? 'Usage:' : '      '} taorl-sandbox ${sandboxCommands[name].synopsis}`,
    ),
    '',
    ...names.flatMap((name) => [...wrap(`${name}: ${sandboxCommands[name].summary}`, WIDTH), '']),
    'Options of both:',
    ...flagRows(flagsOf(names)),
    ...names.flatMap((name) => ['', `Options of ${name}:`, ...flagRows(flagsOf([name]))]),
    '',
  ].join('\n');
}
