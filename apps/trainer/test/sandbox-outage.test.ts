import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Tokenizer, Trajectory } from '@taorl/data';
import type { Problem } from '@taorl/rl';
import { type RlStepContext, rlStep } from '@taorl/rl';
import type { GeneratedSequence, SamplingParams } from '@taorl/rollout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../../../packages/rollout/test/support/scripted-policy.js';
import { type Policy, parseConfig } from '../src/index.js';
import { openSession, type Session } from '../src/session/session.js';
import { rlContext } from '../src/workflows/rl-run.js';

// A tool outage is never scored as a wrong answer: RL steps against a real `taorl-sandbox serve` (a local pool
// behind the real server), (a) through a proxy that answers 503 to every third call, and (b) with the server
// killed and restarted in the middle of a step. The policy answers what its tool call printed, so a call that
// failed in the sandbox would, if trained on, be a wrong answer with reward 0.

const root = resolve(import.meta.dirname, '../../..');
const sandboxCli = join(root, 'packages/sandbox/src/cli.ts');
const OBSERVATION = '```output\n';
const CALL = '```python\nprint(6 * 7)\n```\n```output';

/** Calls print(6 * 7), then answers the number its observation shows (0 when it shows none). */
class ObservingPolicy implements Policy {
  readonly vocabSize: number;
  readonly maxSequenceLength = 4096;

  constructor(private readonly tokenizer: Tokenizer) {
    this.vocabSize = tokenizer.vocabSize;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    const answers = await Promise.all(
      prompts.map((prompt) => {
        const text = this.tokenizer.decode(prompt);
        const observation = text.split(OBSERVATION)[1];
        const printed = observation === undefined ? null : (/^\s*(\d+)/.exec(observation)?.[1] ?? '0');
        const turns = printed === null ? [CALL] : ['', `A: \\boxed{${printed}}<|im_end|>`];
        return new ScriptedPolicy(this.tokenizer, turns, OBSERVATION).generate([prompt], sampling);
      }),
    );
    return answers.map((answer) => answer[0] as GeneratedSequence);
  }

  logits(): never {
    throw new Error('no logits');
  }

  trainableVariables(): never[] {
    return [];
  }

  async save(): Promise<void> {}

  dispose(): void {}
}

/**
 * A `taorl-sandbox serve` process with one worker, no preloads and room to queue every call of a step, on `port`
 * (0: any free port). One Node process (tsx as a loader, not its wrapper), so that SIGKILL kills the server.
 */
async function startServe(port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      sandboxCli,
      'serve',
      '--port',
      String(port),
      '--workers',
      '1',
      '--no-preload',
      '--max-queue',
      '64',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const pattern = /serving .* on (http:\/\/\S+)/;
  while (!pattern.test(output)) {
    if (child.exitCode !== null) throw new Error(`taorl-sandbox serve exited: ${output}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return { child, url: pattern.exec(output)?.[1] as string };
}

async function stopServe(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  await exited;
}

/** A proxy in front of `target` that answers 503 to every third request and forwards the others. */
async function flakyProxy(target: string): Promise<{ server: Server; url: string; refused: () => number }> {
  let requests = 0;
  let refused = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    requests++;
    if (requests % 3 === 0) {
      refused++;
      response.writeHead(503).end('every third call fails');
      return;
    }
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers: { 'content-type': 'application/json' },
      ...(request.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}`, refused: () => refused };
}

/** A session on the sandbox at `url` (the SandboxFusion client, without retries of its own). */
function openOn(url: string, tool: string): Promise<Session> {
  const outDir = mkdtempSync(join(tmpdir(), 'taorl-sandbox-outage-'));
  const config = parseConfig(
    [
      'seed: 3',
      'backend: wasm',
      `outDir: ${JSON.stringify(outDir)}`,
      `tool: {sandbox: {name: sandboxfusion, url: ${JSON.stringify(url)}, retries: 0}, ${tool}}`,
      'rollout: {maxResponseTokens: 256, maxTurns: 2, lanes: 2, workers: 1}',
      'rl: {groups: 3, groupSize: 4, maxGenBatches: 1, filters: []}',
    ].join('\n'),
    'outage.yaml',
  );
  return openSession(config, 'outage.yaml');
}

interface Steps {
  context: RlStepContext;
  /** The batches the update was given, in step order. */
  trained: Trajectory[][];
  close(): Promise<void>;
}

/** The session's RL context with the observing policy, problems whose answer is 42, and a recording update. */
async function steps(session: Session): Promise<Steps> {
  const problems = (step: number, batch: number, count: number): Problem[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `s${step}-b${batch}-q${i}`,
      promptIds: session.promptIds([{ role: 'user', content: 'What is 6 * 7?' }]),
      gold: '42',
    }));
  const { context, updater } = rlContext(session, { train: problems, test: () => [] });
  const trained: Trajectory[][] = [];
  await context.sync.start(0);
  return {
    context: {
      ...context,
      policy: new ObservingPolicy(session.tokenizer),
      update: async (batch) => {
        trained.push([...batch]);
        return { loss: 0, clipFracLow: 0, clipFracHigh: 0, approxKl: 0, gradNorm: 0 };
      },
    },
    trained,
    async close() {
      updater.dispose();
      await session.close();
    },
  };
}

const statuses = (batch: readonly Trajectory[]) =>
  batch.flatMap((t) => t.toolCalls.map((call) => call.status));

let serve: { child: ChildProcess; url: string };

beforeAll(async () => {
  serve = await startServe(0);
});

afterAll(async () => {
  await stopServe(serve.child, 'SIGTERM');
});

describe('a server that answers 503 to every third call', () => {
  it('with the retries: every call reaches the program, every answer is right', async () => {
    const proxy = await flakyProxy(serve.url);
    const run = await steps(await openOn(proxy.url, 'infraRetries: 8, infraRetryDelayMs: 10'));
    try {
      for (const step of [1, 2]) {
        const line = await rlStep(run.context, step);
        expect(line).toMatchObject({ accuracy: 1, toolInfraFailureRate: 0, toolSuccessRate: 1 });
        expect(line.filterDrops['tool-outage']).toBeUndefined();
      }
      expect(proxy.refused()).toBeGreaterThanOrEqual(8);
      const trained = run.trained.flat();
      expect(trained).toHaveLength(24);
      expect(trained.every((t) => t.correct && t.reward === 1)).toBe(true);
      expect(new Set(statuses(trained))).toEqual(new Set(['ok']));
    } finally {
      await run.close();
      proxy.server.close();
    }
  });

  it('without them: the outages are dropped, never trained as wrong answers; past the threshold the step fails', async () => {
    const proxy = await flakyProxy(serve.url);
    const run = await steps(await openOn(proxy.url, 'infraRetries: 0, maxInfraFailureRate: 0.5'));
    try {
      const line = await rlStep(run.context, 1);
      // Every third request is refused (the health check was the first): 4 of the 12 calls met a 503. Their
      // answers (0) are wrong, and none of them is trained on.
      const outages = 4;
      expect(line.toolInfraFailureRate).toBeCloseTo(outages / 12, 10);
      expect(line.filterDrops).toEqual({ 'tool-outage': outages });
      expect(line.toolSuccessRate).toBe(1);
      const trained = run.trained.flat();
      expect(trained).toHaveLength(12 - outages);
      expect(trained.every((t) => t.correct && t.reward === 1)).toBe(true);
      expect(statuses(trained)).not.toContain('sandbox_error');
      // The accuracy over all generated trajectories shows what training on the outages would have taught.
      expect(line.accuracy).toBeCloseTo(1 - outages / 12, 10);

      const strict = { ...run.context, maxInfraFailureRate: 0.05 };
      await expect(rlStep(strict, 2)).rejects.toThrow(
        new RegExp(
          `RL step 2: \\d+ of 12 tool calls \\(\\d+\\.\\d%\\) failed in the sandbox itself, more than tool.maxInfraFailureRate \\(0.05\\).*` +
            `SandboxFusion failed after 1 attempts: ${proxy.url}/run_code: HTTP 503`,
        ),
      );
      expect(run.trained).toHaveLength(1);
    } finally {
      await run.close();
      proxy.server.close();
    }
  });
});

describe('a server killed and restarted in the middle of a run', () => {
  it('the calls wait for it within the retry budget; a longer outage fails the step naming the URL', async () => {
    const own = await startServe(0);
    const port = new URL(own.url).port;
    const run = await steps(await openOn(own.url, 'infraRetries: 6, infraRetryDelayMs: 250'));
    let restarted: { child: ChildProcess; url: string } | null = null;
    try {
      expect(await rlStep(run.context, 1)).toMatchObject({ accuracy: 1, toolInfraFailureRate: 0 });
      // Killed without warning; back on the same port while step 2's calls are retrying.
      await stopServe(own.child, 'SIGKILL');
      const step2 = rlStep(run.context, 2);
      await new Promise((wake) => setTimeout(wake, 300));
      restarted = await startServe(Number(port));
      const line = await step2;
      expect(line).toMatchObject({ accuracy: 1, toolInfraFailureRate: 0, trajectoriesKept: 12 });
      expect(run.trained.flat().every((t) => t.correct)).toBe(true);
      expect(new Set(statuses(run.trained.flat()))).toEqual(new Set(['ok']));

      // Down for longer than the retries wait (0.25 + 0.5 + ... + 8 s): the step fails, nothing is trained.
      await stopServe(restarted.child, 'SIGKILL');
      await expect(rlStep(run.context, 3)).rejects.toThrow(
        new RegExp(`RL step 3: 12 of 12 tool calls .*${own.url}/run_code: .*ECONNREFUSED.*after 7 attempts`),
      );
      expect(run.trained).toHaveLength(2);
    } finally {
      await run.close();
      await stopServe(own.child, 'SIGKILL');
      if (restarted !== null) await stopServe(restarted.child, 'SIGKILL');
    }
  });

  it('a session refuses to open on a sandbox that is down, naming the URL', async () => {
    const gone = await startServe(0);
    await stopServe(gone.child, 'SIGTERM');
    await expect(openOn(gone.url, 'infraRetries: 0')).rejects.toThrow(
      new RegExp(`tool.sandbox.*health check.*${gone.url}/run_code.*ECONNREFUSED`),
    );
  });
});
