import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import type { RolloutPolicy } from '@taorl/rollout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/index.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import { capture } from '../support/capture-io.js';
import { decode, sharpPolicy } from './serve-fixture.js';

// Issue 39 items 8 and 9: the event loop between queued model calls, and request bodies too large or too slow.

const BODY_TIMEOUT_MS = 1500;
let policy: TransformerPolicy;
let server: InferenceServer<TransformerPolicy>;

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  policy = sharpPolicy(1);
  server = await startServer({ policy, decode, modelName: 'tiny', port: 0, bodyTimeoutMs: BODY_TIMEOUT_MS });
});
afterAll(async () => {
  await server.close();
  policy.dispose();
});

/** What a raw connection receives until the server closes it, and how long that took. */
function rawExchange(head: string, body: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let text = '';
    const socket = connect(server.port, '127.0.0.1', () => socket.write(head + body));
    socket.on('data', (chunk) => {
      text += chunk.toString();
    });
    // A reset while the rest of a refused body is still being sent: the answer came before it.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
  });
}

describe('taorl serve: bodies', () => {
  it('answers a declared Content-Length over 16 MiB with 413 at once, without waiting for the body', async () => {
    const declared = 17 * 1024 * 1024;
    const head =
      'POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
      `content-length: ${declared}\r\n\r\n`;
    // Only the first bytes of the body are sent: the answer must not wait for the rest (nor for the body timeout).
    const { text, ms } = await rawExchange(head, '{"prompt": [');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain(`request body of ${declared} bytes is over the limit of 16777216 bytes`);
    expect(ms).toBeLessThan(BODY_TIMEOUT_MS);
  });

  it('answers a chunked body with 413 once more than 16 MiB have arrived', async () => {
    const head =
      'POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
      'transfer-encoding: chunked\r\n\r\n';
    const chunk = ' '.repeat(1024 * 1024);
    const chunks = Array.from({ length: 17 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const { text } = await rawExchange(head, chunks);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/request body of at least \d+ bytes is over the limit of 16777216 bytes/);
  });

  it(`cuts off a body that has not arrived within the body timeout with 408 (here ${BODY_TIMEOUT_MS} ms)`, async () => {
    const body = '{"prompt": [1, 2, 3], "max_tokens": 1}';
    const head =
      'POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
      `content-length: ${body.length}\r\n\r\n`;
    const { text, ms } = await rawExchange(head, body.slice(0, 10));
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain(`the request body did not arrive within ${BODY_TIMEOUT_MS / 1000} s`);
    expect(ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
  });
});

describe('taorl serve: the event loop while requests queue', () => {
  it('answers /health and a bad request between model calls, not after 10 queued unbatchable requests', async () => {
    // Wall-clock end of every model call, to count the calls a request waited for (a ratio to the call's length).
    const callEnds: number[] = [];
    const timed: RolloutPolicy = {
      vocabSize: policy.vocabSize,
      maxSequenceLength: policy.maxSequenceLength,
      async generate(prompts, sampling) {
        const sequences = await policy.generate(prompts, sampling);
        callEnds.push(Date.now());
        return sequences;
      },
    };
    const queueServer = await startServer({ policy: timed, decode, modelName: 'tiny', port: 0 });
    // The client runs on its own thread, so its requests and its clock do not wait for the server's event loop.
    const client = new Worker(
      `const { parentPort, workerData: { url } } = require('node:worker_threads');
       const post = (body) => fetch(url + '/v1/completions', {
         method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
       }).then((r) => r.status);
       const timed = async (f) => { const sent = Date.now(); const status = await f(); return { status, sent, answered: Date.now() }; };
       const request = (temperature) => post({ prompt: [72, 105], max_tokens: 48, temperature, seed: 1, ignore_eos: true });
       (async () => {
         // Ten requests with distinct temperatures: none can share a model call.
         const queued = Array.from({ length: 10 }, (_, i) => request(0.6 + i / 100));
         await new Promise((resolve) => setTimeout(resolve, 100));
         const health = await timed(() => fetch(url + '/health').then((r) => r.status));
         const refused = await timed(() => post({ prompt: 'text' }));
         const statuses = await Promise.all(queued);
         parentPort.postMessage({ health, refused, statuses });
       })().catch((error) => parentPort.postMessage({ error: String(error) }));`,
      { eval: true, workerData: { url: queueServer.url } },
    );
    type Exchange = { status: number; sent: number; answered: number };
    let result: { health: Exchange; refused: Exchange; statuses: number[]; error?: string };
    try {
      result = await new Promise((resolve, reject) => {
        client.once('message', resolve);
        client.once('error', reject);
      });
    } finally {
      await client.terminate();
      await queueServer.close();
    }
    expect(result.error).toBeUndefined();
    const { health, refused, statuses } = result;
    expect([health.status, refused.status, ...statuses]).toEqual([200, 400, ...Array(10).fill(200)]);
    const callsBetween = (exchange: Exchange) =>
      callEnds.filter((end) => end >= exchange.sent && end <= exchange.answered).length;
    // Most of the queue was still to be served when /health was asked...
    expect(callEnds.filter((end) => end >= health.sent).length).toBeGreaterThanOrEqual(8);
    // ...yet it waited for the call under way at most (the refusal also for the turns that read its body).
    expect(callsBetween(health)).toBeLessThanOrEqual(1);
    expect(callsBetween(refused)).toBeLessThanOrEqual(2);
  });
});

describe('taorl serve: connections', () => {
  it('holds at most maxConnections open: idle ones make room, so /health is answered through a flood', async () => {
    const capped = await startServer({ policy, decode, modelName: 'tiny', port: 0, maxConnections: 4 });
    const sockets: ReturnType<typeof connect>[] = [];
    try {
      const open = () =>
        new Promise<{ socket: ReturnType<typeof connect>; closed: Promise<void> }>((resolve) => {
          const socket = connect(capped.port, '127.0.0.1', () => resolve({ socket, closed }));
          socket.on('error', () => undefined);
          const closed = new Promise<void>((done) => socket.once('close', () => done()));
          sockets.push(socket);
        });
      // Twenty idle connections (no request sent) for four places: the oldest are closed as new ones come.
      const idle = [];
      for (let i = 0; i < 20; i++) idle.push(await open());
      await Promise.all(idle.slice(0, 16).map((connection) => connection.closed));
      // Through the flood /health is answered (it waited for a place before).
      const health = await open();
      let answer = '';
      health.socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      health.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await health.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      // Connections that sent a request are not the ones closed: four requests whose bodies are still coming hold
      // every place, a fifth connection is closed.
      for (const { socket } of idle) socket.destroy();
      await Promise.all([...idle, health].map((connection) => connection.closed));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const busy = await Promise.all(Array.from({ length: 4 }, () => open()));
      for (const { socket } of busy) {
        socket.write(
          'POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
            'content-length: 100\r\n\r\n{',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const fifth = await open();
      await fifth.closed;
      expect(busy.every(({ socket }) => !socket.destroyed)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.close();
    }
  });

  it('refuses a maxConnections or a maxBatch out of its range, naming it', async () => {
    await expect(
      startServer({ policy, decode, modelName: 'tiny', port: 0, maxConnections: 100_000 }),
    ).rejects.toThrow('startServer: maxConnections must be an integer from 1 to 16384, got 100000');
    await expect(startServer({ policy, decode, modelName: 'tiny', port: 0, maxBatch: 1e6 })).rejects.toThrow(
      'startServer: maxBatch must be an integer from 1 to 4096, got 1000000',
    );
    const flag = capture();
    expect(await runCli(['serve', '--max-connections', '0'], flag.io)).toBe(2);
    expect(flag.err.join('')).toContain("--max-connections must be an integer in [1, 16384], got '0'");
  });
});
