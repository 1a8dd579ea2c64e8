import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { initBackend } from '@taorl/grpo';
import { isLoopback } from '@taorl/sandbox/node';
import { API_KEY_ENV, apiKeyFromEnv } from '../remote/api-key.js';
import { openServedModel } from '../serve/model.js';
import { startServer } from '../serve/server.js';
import { backendCandidates } from '../session/session.js';
import type { CliCommand } from './cli-command.js';
import { UsageError } from './command-args.js';

const SUMMARY =
  'Inference server for the local policy: vLLM /v1/completions and SGLang /generate over token ids, weight reloads';

const flags = {
  model: { type: 'string', doc: 'Hugging Face folder to serve (default: a fresh embedded tiny model)' },
  seed: { type: 'string', doc: 'initialisation seed of the embedded tiny model (default 0)' },
  host: {
    type: 'string',
    doc: `address to listen on (default 127.0.0.1); any other than loopback needs ${API_KEY_ENV}`,
  },
  'reload-dir': {
    type: 'string',
    doc: 'the only folder POST /update_weights_from_disk may load from (links resolved); without it reloads are off',
  },
  port: { type: 'string', doc: 'port (default 8000; 0 picks a free one)' },
  'model-name': {
    type: 'string',
    doc: 'name in /v1/models and in requests (default: --model, or taorl-tiny)',
  },
  'max-batch': { type: 'string', doc: 'most requests per model call (default 64)' },
  backend: { type: 'string', doc: 'TensorFlow.js backend: wasm, cpu or tensorflow (default wasm)' },
  help: { type: 'boolean', short: 'h', doc: 'show this help' },
} as const;

function usage(): string {
  const rows = Object.entries(flags).map(([name, spec]) => {
    const short = 'short' in spec ? `-${spec.short}, ` : '    ';
    return `  ${`${short}--${name}${spec.type === 'string' ? ' <value>' : ''}`.padEnd(26)} ${spec.doc}`;
  });
  return ['Usage: taorl serve [options]', '', SUMMARY, '', 'Options:', ...rows, ''].join('\n');
}

function parseFlags(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function integer(
  value: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer in [${min}, ${max}], got '${value}'`);
  }
  return n;
}

const untilSignal = () =>
  new Promise<string>((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });

/** `taorl serve`: loads only the policy and its tokenizer (no config, no sandbox) and serves until SIGTERM/SIGINT. */
export const serveCommand: CliCommand = {
  summary: SUMMARY,
  async run(args, io) {
    const values = parseFlags(args);
    if (values.help === true) {
      io.out(usage());
      return 0;
    }
    const backendName = values.backend ?? 'wasm';
    if (!Object.hasOwn(backendCandidates, backendName)) {
      throw new UsageError(
        `--backend must be one of ${Object.keys(backendCandidates).join(', ')}, got '${values.backend}'`,
      );
    }
    const backend = backendCandidates[backendName as keyof typeof backendCandidates];
    const port = integer(values.port, 'port', 8000, 0, 65535);
    const host = values.host ?? '127.0.0.1';
    const apiKey = apiKeyFromEnv();
    if (!isLoopback(host) && apiKey === undefined) {
      throw new UsageError(
        `--host ${host} lets other machines reach the server: set ${API_KEY_ENV} to a secret token, which ` +
          'clients then send as Authorization: Bearer <token>',
      );
    }
    const reloadRoot = values['reload-dir'] === undefined ? undefined : resolve(values['reload-dir']);
    if (reloadRoot !== undefined && statSync(reloadRoot, { throwIfNoEntry: false })?.isDirectory() !== true)
      throw new UsageError(`--reload-dir ${reloadRoot} is not a folder`);
    const maxBatch = integer(values['max-batch'], 'max-batch', 64, 1, Number.MAX_SAFE_INTEGER);
    const seed = integer(values.seed, 'seed', 0, 0, 2 ** 32 - 1);
    await initBackend({ prefer: backend });
    const model = await openServedModel({
      ...(values.model === undefined ? {} : { dir: values.model }),
      seed,
    });
    const name = values['model-name'] ?? values.model ?? 'taorl-tiny';
    const server = await startServer({
      policy: model.policy,
      decode: (ids, options) => model.tokenizer.decode(ids, options),
      tokenizerVocabSize: model.tokenizer.vocabSize,
      modelName: name,
      ...(model.dir === undefined ? {} : { modelPath: model.dir }),
      eosTokenId: model.tokenizer.eosTokenId,
      ...(reloadRoot === undefined ? {} : { loadWeights: (dir) => model.loadWeights(dir), reloadRoot }),
      releasePolicy: (policy) => policy.dispose(),
      maxBatch,
      host,
      port,
      ...(apiKey === undefined ? {} : { apiKey }),
    });
    io.out(
      `taorl serve: listening on ${server.url} (model ${name}, vocab ${model.policy.vocabSize}, ` +
        `max length ${model.policy.maxSequenceLength}; weight reloads ` +
        `${reloadRoot === undefined ? 'off' : `from ${reloadRoot}`}; ` +
        `${apiKey === undefined ? 'no API key' : `API key from ${API_KEY_ENV}`})\n`,
    );
    const signal = await untilSignal();
    await server.close();
    server.batcher.policy.dispose();
    io.out(`taorl serve: stopped on ${signal}\n`);
    return 0;
  },
};
