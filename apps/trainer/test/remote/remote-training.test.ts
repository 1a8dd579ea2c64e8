import { readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createTinyPolicy,
  loadPolicy,
  parseConfig,
  type RlStepMetrics,
  readMetrics,
  rlContext,
  rlStep,
  runCli,
} from '../../src/index.js';
import { problemSource } from '../../src/session/problem-source.js';
import { openSession } from '../../src/session/session.js';
import { capture } from '../support/capture-io.js';
import {
  greedy,
  remoteConfigText,
  servedGreedy,
  tokenizer,
  weightVersion,
} from './remote-training-support.js';
import { type ServeProcess, serveTinyPolicyForFile } from './serve-process.js';

// The trainer and the server start from the same saved tiny policy.
const { root, modelDir, servers } = serveTinyPolicyForFile({
  tempPrefix: 'taorl-remote-training-',
  servers: 1,
  seed: 3,
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('RL in remote mode: rollouts from a taorl serve process, training local, weights pushed back', () => {
  it('rolls out on the server and pushes the weights after every step (reloadEvery 1)', async () => {
    const [server] = servers as [ServeProcess];
    const outDir = join(root, 'every-step');
    const config = parseConfig(
      remoteConfigText({
        outDir,
        modelDir,
        steps: 3,
        remote: [`endpoints: [${server.url}]`],
        // Tied rewards (every sample truncated) give zero advantages; the bonus still moves the weights.
        loss: '{name: vanilla, entropyCoef: 0.01}',
      }),
      'remote.yaml',
    );
    const session = await openSession(config, 'remote.yaml');
    const notices: string[] = [];
    const { context, updater } = rlContext(session, await problemSource(session), (m) => notices.push(m));
    const startVersion = await weightVersion(server.url);
    try {
      expect(context.policy).not.toBe(session.policy);
      expect(context.policy.concurrentGenerate).toBe(true);
      await context.sync.start(0);
      // Version 0: the servers start from exactly the trainer's weights.
      expect(await weightVersion(server.url)).toBe(startVersion + 1);
      const initial = await greedy(session.policy);
      expect(await servedGreedy(server.url)).toEqual(initial);

      const lines: RlStepMetrics[] = [];
      for (let step = 1; step <= 3; step++) {
        const line = await rlStep(context, step);
        lines.push(line);
        expect(line).toMatchObject({
          policyVersion: step - 1,
          policyLag: 0,
          entropySource: 'top-k estimate',
        });
        expect(line.trajectoriesKept).toBe(4);
        // The rollouts came from the server: every sample is a request there.
        // No failure: a failing step's line names the cause (lastFailure), which this comparison prints. A kept-alive
        // connection the server closed between steps is not one (remote-policy-failures.test.ts).
        expect(line.servers).toEqual([
          { url: server.url, requests: expect.any(Number), retries: 0, failures: 0 },
        ]);
        expect(line.servers![0]!.requests).toBeGreaterThanOrEqual(4);
        expect(line.time.weightSyncMs).toBeGreaterThan(0);
        // The update's old log-probs are the server's; at lag 0 they are the trained weights' own (ratio 1).
        expect(Math.abs(line.approxKl)).toBeLessThan(1e-5);
        // After the step the server holds exactly the trained weights: the same greedy ids and log-probs, bit
        // for bit (same code on the same weights in both processes).
        expect(await weightVersion(server.url)).toBe(startVersion + 1 + step);
        expect(await servedGreedy(server.url)).toEqual(await greedy(session.policy));
      }
      // Training changed the weights, so the comparison above could have failed.
      const trained = await greedy(session.policy);
      const moved = trained.logProbs.some((p, i) => Math.abs(p - initial.logProbs[i]!) > 1e-4);
      expect(moved || trained.tokens.join() !== initial.tokens.join()).toBe(true);
      // Only the two newest weight folders stay.
      expect(readdirSync(join(outDir, 'served-weights')).sort()).toEqual(['step-2', 'step-3']);
      expect(notices).toEqual([]);
    } finally {
      updater.dispose();
      await context.sync.close();
      await session.close();
    }
  }, 120_000);

  it('rl command, reloadEvery 2 over SGLang /generate: versions, lag and surprisal entropies in metrics.jsonl', async () => {
    const [server] = servers as [ServeProcess];
    const outDir = join(root, 'every-other');
    const file = join(root, 'every-other.yaml');
    writeFileSync(
      file,
      remoteConfigText({
        outDir,
        modelDir,
        steps: 3,
        remote: [`endpoints: ['${server.url}/']`, 'api: sglang', 'reloadEvery: 2', 'topLogprobs: 0'],
      }),
    );
    const startVersion = await weightVersion(server.url);
    const cli = capture();
    expect(await runCli(['rl', '--config', file], cli.io), cli.err.join('')).toBe(0);
    expect(cli.out.join('')).toContain(
      `RL: remote rollouts from ${server.url}/ (sglang API), training local; weights pushed to ` +
        `${join(outDir, 'served-weights')} every 2 step(s)`,
    );
    const lines = readMetrics(join(outDir, 'metrics.jsonl')) as RlStepMetrics[];
    expect(lines.map((line) => [line.step, line.policyVersion, line.policyLag])).toEqual([
      [1, 0, 0],
      [2, 0, 1],
      [3, 2, 0],
    ]);
    for (const line of lines) {
      expect(line.entropySource).toBe('surprisal');
      expect(line.servers![0]!.requests).toBeGreaterThanOrEqual(4);
    }
    // Pushes: the starting weights and those after step 2 (step 3's wait for step 4).
    expect(await weightVersion(server.url)).toBe(startVersion + 2);
    expect(readdirSync(join(outDir, 'served-weights')).sort()).toEqual(['step-0', 'step-2']);
    expect(await servedGreedy(server.url)).toEqual(await greedyOf(join(outDir, 'served-weights', 'step-2')));
  }, 120_000);

  it('stops with an error naming the server when it refuses the weights or none can be reached', async () => {
    const [server] = servers as [ServeProcess];
    // Weights of another shape than the served model: the server refuses them and keeps its own.
    const otherShape = join(root, 'other-shape');
    const policy = createTinyPolicy({ vocabSize: tokenizer.vocabSize, maxPositionEmbeddings: 256, seed: 3 });
    await policy.save(otherShape);
    policy.dispose();
    const file = join(root, 'refused.yaml');
    writeFileSync(
      file,
      remoteConfigText({
        outDir: join(root, 'refused'),
        modelDir: otherShape,
        steps: 2,
        remote: [`endpoints: [${server.url}]`],
      }),
    );
    const before = await weightVersion(server.url);
    const refused = capture();
    // Exit 1 with the message only: a server's refusal is not a bug in taorl, so no stack trace.
    expect(await runCli(['rl', '--config', file], refused.io)).toBe(1);
    expect(refused.err.join('')).toMatch(
      new RegExp(
        `^taorl rl: ${server.url}: weight reload failed: HTTP 400: .*step-0: config.json does not match the ` +
          'served model \\(maxPositionEmbeddings: 512 served vs 256 in the folder\\)',
      ),
    );
    expect(refused.err.join('')).not.toMatch(/\n\s+at /);
    expect(await weightVersion(server.url)).toBe(before);
    expect(readMetrics(join(root, 'refused', 'metrics.jsonl'))).toEqual([]);

    const dead = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = capture();
    expect(
      await runCli(
        [
          'rl',
          '--config',
          file,
          '--set',
          `model.path=${JSON.stringify(modelDir)}`,
          '--set',
          `remote.endpoints=${dead}`,
        ],
        unreachable.io,
      ),
    ).toBe(1);
    expect(unreachable.err.join('')).toContain(
      `taorl rl: ${dead}: weight reload failed: no server could be reached to load`,
    );
  }, 120_000);

  it('rejects a malformed endpoint naming the field', async () => {
    const bad = capture();
    expect(await runCli(['rl', '--set', 'remote.endpoints=[http://ok:1, "ftp://x"]'], bad.io)).toBe(2);
    expect(bad.err.join('')).toMatch(
      /remote\.endpoints\[1\]: expected an http\(s\) URL such as http:\/\/10\.0\.0\.5:8000, got "ftp:\/\/x"/,
    );
  });
});

/** The greedy continuation of the weights in a folder, loaded locally. */
async function greedyOf(dir: string) {
  const policy = await loadPolicy(dir);
  try {
    return await greedy(policy);
  } finally {
    policy.dispose();
  }
}
