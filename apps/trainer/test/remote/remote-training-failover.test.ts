import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import { describe, expect, it } from 'vitest';
import { parseConfig, type RlStepMetrics, rlContext, rlStep } from '../../src/index.js';
import { problemSource } from '../../src/session/problem-source.js';
import { openSession } from '../../src/session/session.js';
import { greedy, remoteConfigText, servedGreedy, weightVersion } from './remote-training-support.js';
import { type ServeProcess, serveTinyPolicyForFile } from './serve-process.js';

const { root, modelDir, servers } = serveTinyPolicyForFile({
  tempPrefix: 'taorl-remote-failover-',
  servers: 2,
  seed: 4,
});

/**
 * A TCP relay in front of a server, so the test knows when a request to it is in flight: once armed, the first
 * bytes a client sends run `onRequest` (which kills the server) instead of being relayed, and the relay stops
 * listening, as a dead host would.
 */
class Relay {
  readonly sockets = new Set<Socket>();
  private armed: (() => void) | null = null;

  private constructor(
    readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<Relay> {
    const { hostname, port } = new URL(target);
    let relay: Relay | undefined;
    const server = createServer((client) => {
      const upstream = connect(Number(port), hostname);
      for (const socket of [client, upstream]) {
        relay!.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          relay!.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk) => {
        const onRequest = relay!.armed;
        if (onRequest === null) upstream.write(chunk);
        else {
          relay!.armed = null;
          onRequest();
        }
      });
      upstream.on('data', (chunk) => client.write(chunk));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new Relay(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    return relay;
  }

  /** Resolves once `onRequest` ran on the next request. */
  arm(onRequest: () => void): Promise<void> {
    return new Promise((resolve) => {
      this.armed = () => {
        onRequest();
        resolve();
      };
    });
  }

  /** Stops listening and breaks every connection. */
  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/** Records each rollout call: how many prompts went in and how many sequences came back. */
class CallLog implements RolloutPolicy {
  readonly calls: { prompts: number; answers: number }[] = [];
  readonly concurrentGenerate = true;

  constructor(private readonly inner: RolloutPolicy) {}

  get vocabSize(): number {
    return this.inner.vocabSize;
  }

  get maxSequenceLength(): number {
    return this.inner.maxSequenceLength;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    const answers = await this.inner.generate(prompts, sampling);
    this.calls.push({ prompts: prompts.length, answers: answers.length });
    return answers;
  }
}

describe('RL in remote mode with two servers, one killed mid-run', () => {
  it('finishes the step on the survivor, drops the dead server from rollouts and pushes, loses no sample', async () => {
    const [survivor, victim] = servers as [ServeProcess, ServeProcess];
    const relay = await Relay.start(victim.url);
    const outDir = join(root, 'run');
    const config = parseConfig(
      remoteConfigText({
        outDir,
        modelDir,
        steps: 3,
        remote: [`endpoints: [${survivor.url}, ${relay.url}]`, 'api: sglang'],
      }),
      'failover.yaml',
    );
    const session = await openSession(config, 'failover.yaml');
    const notices: string[] = [];
    const { context, updater } = rlContext(session, await problemSource(session), (m) => notices.push(m));
    const calls = new CallLog(context.policy);
    context.policy = calls;
    try {
      await context.sync.start(0);
      const lines: RlStepMetrics[] = [await rlStep(context, 1)];
      expect(lines[0]!.servers!.map((server) => server.requests > 0)).toEqual([true, true]);

      // Step 2: the victim is SIGKILLed while a rollout request to it is in flight.
      const killed = relay.arm(() => {
        victim.child.kill('SIGKILL');
        void relay.close();
      });
      lines.push(await rlStep(context, 2));
      await killed;
      expect(await victim.exited).toBe('SIGKILL');
      lines.push(await rlStep(context, 3));

      for (const line of lines) {
        // Every trajectory of the step is there, each once: groups x groupSize, two full groups.
        expect(line.trajectoriesKept).toBe(4);
        expect(line.groupsKept).toBe(2);
      }
      for (const call of calls.calls) expect(call.answers).toBe(call.prompts);
      const [, second, third] = lines as [RlStepMetrics, RlStepMetrics, RlStepMetrics];
      const [survivorShare, victimShare] = second.servers!;
      expect(victimShare!.url).toBe(relay.url);
      expect(victimShare!.failures).toBeGreaterThan(0);
      // The line names what failed: the client's message, which starts with the request's URL.
      expect(victimShare!.lastFailure).toMatch(new RegExp(`^${relay.url}/generate: `));
      expect(survivorShare!.lastFailure).toBeUndefined();
      expect(survivorShare!.retries).toBeGreaterThan(0);
      expect(victimShare!.dropped).toMatch(/ECONNREFUSED/);
      expect(notices).toEqual([expect.stringContaining(`remote: ${relay.url} left the run`)]);
      // Step 3 ran on the survivor alone, which holds the trained weights.
      expect(third.servers).toEqual([
        { url: survivor.url, requests: expect.any(Number), retries: 0, failures: 0 },
      ]);
      expect(third.servers![0]!.requests).toBeGreaterThanOrEqual(4);
      expect(third.policyVersion).toBe(2);
      expect(await weightVersion(survivor.url)).toBe(4);
      expect(await servedGreedy(survivor.url)).toEqual(await greedy(session.policy));
    } finally {
      updater.dispose();
      await context.sync.close();
      await session.close();
      await relay.close();
    }
  }, 120_000);
});
