#!/usr/bin/env node
// taorl-sandbox: run a Python file (or stdin) in the local sandbox and print the ExecResult as JSON, or serve the
// local sandbox behind SandboxFusion's HTTP API.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSandbox } from './create';
import type { IsolationMode } from './local/options';
import { isLoopback } from './serve/guard';
import { startSandboxServer } from './serve/server';

const USAGE = `Usage: taorl-sandbox run [file.py | -] [options]
       taorl-sandbox serve [options]

run: runs the Python code of file.py (or standard input when the file is "-" or missing) in the local
bubblewrap sandbox and prints the ExecResult as JSON. Exit code: 0 when the status is ok, 1 for any
other status, 2 for a usage error.

serve: serves a local sandbox pool behind SandboxFusion's API (POST /run_code, Python only), plus
GET /health and GET /metrics (Prometheus text), until SIGINT or SIGTERM, then shuts down gracefully.

Options of both:
  --memory-mb N       address-space limit of a run (default 1024; serve: runs take memory_limit_MB instead)
  --python PATH       interpreter (default /usr/bin/python3)
  --isolation MODE    required (default) | preferred | none
  --no-preload        do not import sympy and numpy first

Options of run:
  --timeout-ms N      wall-clock limit (default 10000)
  --cpu-time-ms N     CPU-time limit (default: the wall-clock limit)
  --stdin TEXT        text for the program's standard input

Options of serve:
  --host ADDR         address to bind (default 127.0.0.1; any other needs a token)
  --port N            port (default 8080; 0 picks a free one)
  --workers N         pool size = runs at once (default: CPUs, at most 8)
  --token T           require Authorization: Bearer T (or set TAORL_SANDBOX_TOKEN, which keeps it
                      out of the process list); at least 16 characters
  --insecure-no-token serve a non-loopback --host without a token (a private network whose
                      clients cannot send one, as verl's): anyone reaching the port runs code
  --max-queue-mb N    memory requests not yet running may hold (default 1024); past it a
                      request gets 504 with Retry-After, which SandboxFusion clients retry
  --max-queue N       also at most N requests waiting for a worker (default: no count)
  --queue-timeout-ms N  longest wait for a worker before a 504 (default: no limit)
  --heartbeat-ms N    a request unanswered this long gets its 200 head, then a space every
                      N ms until its answer, so no client read timeout runs out while it
                      waits (default 5000; 0: answers come whole)
  --max-connections N connections held open at once (default: what the descriptor limit
                      leaves beside the workers, at most 16384)
  --max-run-timeout-ms N  the longest run_timeout a run gets; more, or none, is this (default 60000)
  --max-memory-mb N   the largest memory_limit_MB a run gets; more, or none, is this (default 4096)
  --max-output-bytes N  stdout and stderr kept per run, each (default 1048576)
  --max-body-bytes N  largest request body (default 16777216)
  --grace-ms N        on shutdown, how long running requests may finish (default 30000)
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

function integerOption(value: string | undefined, name: string, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) fail(`--${name} must be an integer >= ${min}, got ${value}`);
  return parsed;
}

const megabytes = (value: number | undefined) => (value === undefined ? undefined : value * 1024 * 1024);

type Values = ReturnType<typeof parseCommandLine>['values'];

const RUN_ONLY = ['timeout-ms', 'cpu-time-ms', 'stdin'] as const;
const SERVE_ONLY = [
  'host',
  'port',
  'workers',
  'token',
  'insecure-no-token',
  'max-queue-mb',
  'max-queue',
  'queue-timeout-ms',
  'heartbeat-ms',
  'max-connections',
  'max-run-timeout-ms',
  'max-memory-mb',
  'max-output-bytes',
  'max-body-bytes',
  'grace-ms',
] as const;

function sandboxOptions(values: Values) {
  const isolation = values.isolation as IsolationMode | undefined;
  return {
    ...(values.python ? { pythonPath: values.python } : {}),
    ...(isolation ? { isolation } : {}),
    ...(values['no-preload'] ? { preload: [] } : {}),
  };
}

async function serve(values: Values): Promise<number> {
  const token = values.token ?? process.env.TAORL_SANDBOX_TOKEN;
  const workers = integerOption(values.workers, 'workers');
  const maxOutputBytes = integerOption(values['max-output-bytes'], 'max-output-bytes');
  const memoryMb = integerOption(values['memory-mb'], 'memory-mb');
  const sandbox = await createSandbox({
    ...sandboxOptions(values),
    ...(workers ? { workers } : {}),
    limits: { ...(maxOutputBytes ? { maxOutputBytes } : {}), ...(memoryMb ? { memoryMb } : {}) },
  });
  const optional = (name: string, value: number | undefined) =>
    value === undefined ? {} : { [name]: value };
  let server: Awaited<ReturnType<typeof startSandboxServer>>;
  try {
    server = await startSandboxServer({
      sandbox,
      ...(values.host ? { host: values.host } : {}),
      port: integerOption(values.port, 'port', 0) ?? 8080,
      ...(token ? { token } : {}),
      ...(values['insecure-no-token'] ? { insecureNoToken: true } : {}),
      ...optional('maxQueueBytes', megabytes(integerOption(values['max-queue-mb'], 'max-queue-mb'))),
      ...optional('maxQueue', integerOption(values['max-queue'], 'max-queue', 0)),
      ...optional('maxConnections', integerOption(values['max-connections'], 'max-connections')),
      ...optional('queueTimeoutMs', integerOption(values['queue-timeout-ms'], 'queue-timeout-ms')),
      ...optional('heartbeatMs', integerOption(values['heartbeat-ms'], 'heartbeat-ms', 0)),
      ...optional('maxRunTimeoutMs', integerOption(values['max-run-timeout-ms'], 'max-run-timeout-ms')),
      ...optional('maxMemoryMb', integerOption(values['max-memory-mb'], 'max-memory-mb')),
      ...optional('maxBodyBytes', integerOption(values['max-body-bytes'], 'max-body-bytes')),
    });
  } catch (error) {
    await sandbox.close();
    if (error instanceof TypeError) fail(error.message);
    throw error;
  }
  const graceMs = integerOption(values['grace-ms'], 'grace-ms', 0) ?? 30_000;
  process.stdout.write(
    `taorl-sandbox: serving SandboxFusion's /run_code on ${server.url} (${sandbox.workers} workers, isolation ` +
      `${sandbox.isolation}, memory bound ${sandbox.runMemoryLimit}; ${token ? 'token required' : 'no token'})\n`,
  );
  if (!token && values.host && !isLoopback(values.host)) {
    process.stderr.write(
      `taorl-sandbox: WARNING: ${server.url} runs code for anyone who can reach it (--insecure-no-token)\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`taorl-sandbox: ${signal}: finishing running requests (up to ${graceMs} ms)\n`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await server.close(graceMs);
  process.stdout.write('taorl-sandbox: stopped\n');
  return 0;
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
  if (command !== 'run' && command !== 'serve')
    fail(command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`);
  const foreign = (command === 'run' ? SERVE_ONLY : RUN_ONLY).filter((name) => values[name] !== undefined);
  if (foreign.length > 0) fail(`${command} does not take --${foreign.join(', --')}`);
  if (command === 'serve') {
    if (positionals.length > 1) fail(`unexpected arguments: ${positionals.slice(1).join(' ')}`);
    return serve(values);
  }
  if (rest.length > 0) fail(`unexpected arguments: ${rest.join(' ')}`);
  const code = readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
  const sandbox = await createSandbox({ workers: 1, ...sandboxOptions(values) });
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
      'insecure-no-token': { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      workers: { type: 'string' },
      token: { type: 'string' },
      'max-queue-mb': { type: 'string' },
      'max-queue': { type: 'string' },
      'queue-timeout-ms': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'max-connections': { type: 'string' },
      'max-run-timeout-ms': { type: 'string' },
      'max-memory-mb': { type: 'string' },
      'max-output-bytes': { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'grace-ms': { type: 'string' },
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
