#!/usr/bin/env node
// taorl-sandbox: run a Python file (or stdin) in the local sandbox and print the ExecResult as JSON.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSandbox } from './create';
import type { IsolationMode } from './local/options';

const USAGE = `Usage: taorl-sandbox run [file.py | -] [options]

Runs the Python code of file.py (or standard input when the file is "-" or missing) in the local
bubblewrap sandbox and prints the ExecResult as JSON. Exit code: 0 when the status is ok, 1 for any
other status, 2 for a usage error.

Options:
  --timeout-ms N      wall-clock limit (default 10000)
  --cpu-time-ms N     CPU-time limit (default: the wall-clock limit)
  --memory-mb N       address-space limit (default 1024)
  --stdin TEXT        text for the program's standard input
  --python PATH       interpreter (default /usr/bin/python3)
  --isolation MODE    required (default) | preferred | none
  --no-preload        do not import sympy and numpy first
`;

function fail(message: string): never {
  process.stderr.write(`taorl-sandbox: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) fail(`--${name} must be a positive number, got ${value}`);
  return parsed;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, file, ...rest] = positionals;
  if (command !== 'run')
    fail(command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`);
  if (rest.length > 0) fail(`unexpected arguments: ${rest.join(' ')}`);
  const code = readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
  const isolation = values.isolation as IsolationMode | undefined;
  const sandbox = await createSandbox({
    workers: 1,
    ...(values.python ? { pythonPath: values.python } : {}),
    ...(isolation ? { isolation } : {}),
    ...(values['no-preload'] ? { preload: [] } : {}),
  });
  try {
    const result = await sandbox.run({
      code,
      ...(values.stdin !== undefined ? { stdin: values.stdin } : {}),
      timeoutMs: numberOption(values['timeout-ms'], 'timeout-ms'),
      cpuTimeMs: numberOption(values['cpu-time-ms'], 'cpu-time-ms'),
      memoryMb: numberOption(values['memory-mb'], 'memory-mb'),
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.status === 'ok' ? 0 : 1;
  } finally {
    await sandbox.close();
  }
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'timeout-ms': { type: 'string' },
      'cpu-time-ms': { type: 'string' },
      'memory-mb': { type: 'string' },
      stdin: { type: 'string' },
      python: { type: 'string' },
      isolation: { type: 'string' },
      'no-preload': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`taorl-sandbox: ${error.message}\n`);
    process.exitCode = 1;
  },
);
