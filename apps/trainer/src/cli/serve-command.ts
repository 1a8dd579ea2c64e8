import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { initBackend } from '@taorl/grpo';
import { CONNECTIONS_CAP, isLoopback } from '@taorl/sandbox/node';
import { API_KEY_ENV, apiKeyFromEnv } from '../remote/api-key.js';
import { openServedModel } from '../serve/model.js';
import { MAX_BATCH, startServer } from '../serve/server.js';
import { backendCandidates } from '../session/session.js';
import type { CliCommand, FlagSpec } from './cli-command.js';
import { commandFlags, commandUsage, parseArgsOptions, UsageError } from './command-args.js';

const SUMMARY =
  'Inference server for the local policy: vLLM /v1/completions and SGLang /generate over token ids, weight reloads';

const flags = {
  model: { type: 'string', doc: 'Hugging Face folder to serve', default: 'a fresh embedded tiny model' },
  seed: { type: 'string', doc: 'initialisation seed of the embedded tiny model', default: '0' },
  host: {
    type: 'string',
    doc: `address to listen on; any other than loopback needs ${API_KEY_ENV}`,
    default: '127.0.0.1',
  },
  'reload-dir': {
    type: 'string',
    doc: 'the only folder POST /update_weights_from_disk may load from (links resolved)',
    default: 'unset: weight reloads are off',
  },
  port: { type: 'string', doc: 'port (0 picks a free one)', default: '8000' },
  'model-name': {
    type: 'string',
    doc: 'name in /v1/models and in requests',
    default: '--model, or taorl-tiny',
  },
  'max-batch': { type: 'string', doc: 'most requests per model call, 1 to 4096', default: '64' },
  'max-connections': {
    type: 'string',
    doc: 'connections held open at once, 1 to 16384; more are closed as they arrive',
    default: 'what the file descriptor limit leaves, at most 16384',
  },
  backend: {
    type: 'string',
    doc: 'TensorFlow.js backend: wasm, cpu or tensorflow',
    default: 'wasm',
  },
} satisfies Record<string, FlagSpec>;

type ServeFlags = Partial<Record<keyof typeof flags, string>> & { help?: boolean };

/** The flags given: every flag of serve but --help takes a value. */
function parseFlags(args: readonly string[]): ServeFlags {
  const options = parseArgsOptions(commandFlags(serveCommand));
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false })
      .values as ServeFlags;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The value of an integer flag, given or its default, in [min, max]. */
function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer in [${min}, ${max}], got '${value}'`);
  }
  return n;
}

/**
 * Resolves on the first SIGTERM or SIGINT. Later ones do not cut the shutdown short (their default action would end
 * the process with requests unanswered): they are noted and the requests received are still answered.
 */
const untilSignal = (io: { out(text: string): void }) =>
  new Promise<string>((resolve) => {
    let first: string | null = null;
    const stop = (signal: string) => {
      if (first !== null) {
        io.out(`taorl serve: ${signal}: already stopping; the requests received are answered first\n`);
        return;
      }
      first = signal;
      io.out(`taorl serve: ${signal}: answering the requests received, then stopping\n`);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });

/** `taorl serve`: loads only the policy and its tokenizer (no config, no sandbox) and serves until SIGTERM/SIGINT. */
export const serveCommand: CliCommand = {
  summary: SUMMARY,
  flags,
  configFlags: false,
  async run(args, io) {
    const values = parseFlags(args);
    if (values.help === true) {
      io.out(commandUsage('serve', serveCommand));
      return 0;
    }
    const backendName = values.backend ?? flags.backend.default;
    if (!Object.hasOwn(backendCandidates, backendName)) {
      throw new UsageError(
        `--backend must be one of ${Object.keys(backendCandidates).join(', ')}, got '${backendName}'`,
      );
    }
    const backend = backendCandidates[backendName as keyof typeof backendCandidates];
    const port = integer(values.port ?? flags.port.default, 'port', 0, 65535);
    const host = values.host ?? flags.host.default;
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
    const maxBatch = integer(values['max-batch'] ?? flags['max-batch'].default, 'max-batch', 1, MAX_BATCH);
    const seed = integer(values.seed ?? flags.seed.default, 'seed', 0, 2 ** 32 - 1);
    const maxConnections =
      values['max-connections'] === undefined
        ? undefined
        : integer(values['max-connections'], 'max-connections', 1, CONNECTIONS_CAP);
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
      ...(maxConnections === undefined ? {} : { maxConnections }),
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
    const signal = await untilSignal(io);
    await server.close();
    server.batcher.policy.dispose();
    io.out(`taorl serve: stopped on ${signal}\n`);
    return 0;
  },
};
