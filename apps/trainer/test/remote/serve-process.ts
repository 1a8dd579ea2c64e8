import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import { afterAll, beforeAll } from 'vitest';
import { createTinyPolicy } from '../../src/index.js';
import { sharpen, tokenizer } from './serve-fixture.js';

const cli = new URL('../../src/cli.ts', import.meta.url).pathname;

/** A `taorl serve` child process (the trainer's sources through tsx) and the URL it listens on. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
  stop(): Promise<void>;
}

/** Starts `taorl serve --port 0 ...args` and resolves once it prints its listening line. */
export async function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=@taorl/source', '--import', 'tsx', cli, 'serve', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /taorl serve: listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`taorl serve exited early with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface TinyPolicyServeOptions {
  /** The temp folder's name starts with this. */
  tempPrefix: string;
  /** How many `taorl serve` processes serve the policy. */
  servers: number;
  /** The tiny policy's initialisation seed. */
  seed: number;
  /** When set, the weights are redrawn by `sharpen` from this seed (peaked distributions, no greedy near-ties). */
  sharpenSeed?: number;
}

export interface ServedTinyPolicy {
  /** A fresh temp folder for the file's runs. */
  root: string;
  /** `root/model`: the saved tiny policy (byte vocabulary, 512 positions) that the servers serve. */
  modelDir: string;
  /** The running servers, filled in before the file's first test. */
  servers: ServeProcess[];
}

/**
 * For the calling test file: saves a tiny policy into a fresh temp folder and starts `taorl serve` processes on it
 * before the file's tests (beforeAll), and stops them after (afterAll). Call once, at the top of the file.
 */
export function serveTinyPolicyForFile(options: TinyPolicyServeOptions): ServedTinyPolicy {
  const root = mkdtempSync(join(tmpdir(), options.tempPrefix));
  const served: ServedTinyPolicy = { root, modelDir: join(root, 'model'), servers: [] };
  beforeAll(async () => {
    await initBackend({ prefer: 'wasm' });
    const policy = createTinyPolicy({
      vocabSize: tokenizer.vocabSize,
      maxPositionEmbeddings: 512,
      seed: options.seed,
    });
    if (options.sharpenSeed !== undefined) sharpen(policy, options.sharpenSeed);
    await policy.save(served.modelDir);
    policy.dispose();
    const started = Array.from({ length: options.servers }, () =>
      startServeProcess(['--model', served.modelDir, '--reload-dir', root]),
    );
    served.servers.push(...(await Promise.all(started)));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(served.servers.map((server) => server.stop()));
  });
  return served;
}
