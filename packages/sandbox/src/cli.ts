#!/usr/bin/env node
// taorl-sandbox: run a Python file (or stdin) in the local sandbox and print the ExecResult as JSON, or serve the
// local sandbox behind SandboxFusion's HTTP API.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type SandboxFlagValues, sandboxFlagEntries, sandboxUsage } from './cli-spec';
import { createSandbox } from './create';
import type { IsolationMode } from './local/options';
import { isLoopback } from './serve/guard';
import { startSandboxServer } from './serve/server';

const USAGE = sandboxUsage();

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

function sandboxOptions(values: SandboxFlagValues) {
  const isolation = values.isolation as IsolationMode | undefined;
  return {
    ...(values.python ? { pythonPath: values.python } : {}),
    ...(isolation ? { isolation } : {}),
    ...(values['no-preload'] ? { preload: [] } : {}),
  };
}

async function serve(values: SandboxFlagValues): Promise<number> {
  const token = values.token ?? process.env.TAORL_SANDBOX_TOKEN;
  const workers = integerOption(values.workers, 'workers');
  const maxOutputBytes = integerOption(values['max-output-bytes'], 'max-output-bytes');
  const memoryMb = integerOption(values['memory-mb'], 'memory-mb');
  // An option out of its range (a TypeError naming it) is a usage error, as the server's own below.
  const sandbox = await createSandbox({
    ...sandboxOptions(values),
    ...(workers ? { workers } : {}),
    limits: { ...(maxOutputBytes ? { maxOutputBytes } : {}), ...(memoryMb ? { memoryMb } : {}) },
  }).catch((error: unknown) => (error instanceof TypeError ? fail(error.message) : Promise.reject(error)));
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
  // The first SIGINT or SIGTERM starts the shutdown; later ones do not cut it short (the default action would end
  // the process at once, leaving running requests unanswered): --grace-ms bounds it, then runs still going are
  // stopped and answered SandboxError.
  let stopping = false;
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stdout.write(
          `taorl-sandbox: ${signal}: already stopping; running requests are answered first (--grace-ms)\n`,
        );
        return;
      }
      stopping = true;
      process.stdout.write(`taorl-sandbox: ${signal}: finishing running requests (up to ${graceMs} ms)\n`);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
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
  const foreign = sandboxFlagEntries()
    .filter(([name, flag]) => !flag.commands.includes(command) && values[name] !== undefined)
    .map(([name]) => name);
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

function parseCommandLine(argv: string[]): { values: SandboxFlagValues; positionals: string[] } {
  const options = Object.fromEntries(
    sandboxFlagEntries().map(([name, flag]) => [
      name,
      { type: flag.type, ...(flag.short === undefined ? {} : { short: flag.short }) },
    ]),
  );
  return parseArgs({ args: argv, allowPositionals: true, options }) as {
    values: SandboxFlagValues;
    positionals: string[];
  };
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
