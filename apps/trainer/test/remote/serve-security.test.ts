import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { createTinyPolicy } from '@taorl/model/node';
import { RemotePolicy } from '@taorl/rollout/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/index.js';
import { reloadWeights } from '../../src/remote/weight-sync.js';
import { openServedModel } from '../../src/serve/model.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import { capture } from '../support/capture-io.js';
import { decode, tokenizer } from './serve-fixture.js';

// `taorl serve` against the requests a web page, another local user or a network peer can send: every case
// below was answered before the guard (issue 21 item 11).

const KEY = 'sesame-4f1c';
const base = mkdtempSync(join(tmpdir(), 'taorl-serve-security-'));
/** The only folder reloads may read. */
const root = join(base, 'reloads');
/** Files outside it that no request may get at. */
const secrets = join(base, 'secrets');
const modelDir = join(root, 'model');
let server: InferenceServer<TransformerPolicy>;
let port = 0;

interface Raw {
  status: number;
  body: string;
}

/** One request with exactly these headers (fetch would not let a test set Host). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };
const auth = { authorization: `Bearer ${KEY}` };
const completion = JSON.stringify({ prompt: [72, 105], max_tokens: 2, temperature: 0 });
const reload = (path: string) =>
  raw('POST', '/update_weights_from_disk', { ...json, ...auth }, JSON.stringify({ model_path: path }));

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  mkdirSync(secrets, { recursive: true });
  const policy = createTinyPolicy({ vocabSize: tokenizer.vocabSize, maxPositionEmbeddings: 64, seed: 1 });
  await policy.save(modelDir);
  policy.dispose();
  const model = await openServedModel({ dir: modelDir });
  server = await startServer({
    policy: model.policy,
    decode,
    modelName: 'tiny',
    port: 0,
    apiKey: KEY,
    reloadRoot: root,
    loadWeights: (dir) => model.loadWeights(dir),
    releasePolicy: (released) => released.dispose(),
  });
  port = server.port;
});
afterAll(async () => {
  await server?.close();
  server?.batcher.policy.dispose();
  rmSync(base, { recursive: true, force: true });
});

describe('taorl serve: who may ask', () => {
  it('needs the bearer token on every route but /health', async () => {
    expect((await raw('GET', '/health', {})).status).toBe(200);
    expect((await raw('GET', '/v1/models', {})).status).toBe(401);
    const none = await raw('POST', '/v1/completions', json, completion);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).error.message).toContain('missing or wrong API key');
    expect(
      (await raw('POST', '/v1/completions', { ...json, authorization: 'Bearer guess' }, completion)).status,
    ).toBe(401);
    expect((await raw('POST', '/v1/completions', { ...json, ...auth }, completion)).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding), a foreign Origin and a POST that is not declared JSON', async () => {
    const rebound = await raw('GET', '/v1/models', { ...auth, host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toContain('is not a loopback name');
    const page = await raw(
      'POST',
      '/v1/completions',
      { ...json, ...auth, origin: 'http://attacker.example' },
      completion,
    );
    expect(page.status).toBe(403);
    const text = await raw('POST', '/v1/completions', { ...auth, 'content-type': 'text/plain' }, completion);
    expect(text.status).toBe(415);
    // Same-origin and loopback names pass.
    const same = await raw('GET', '/v1/models', {
      ...auth,
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(same.status).toBe(200);
  });

  it('sends the token from RemotePolicy and weight reloads', async () => {
    const remote = new RemotePolicy({
      endpoints: [server.url],
      api: 'sglang',
      vocabSize: tokenizer.vocabSize,
      maxSequenceLength: 64,
      apiKey: KEY,
    });
    const [answer] = await remote.generate([Int32Array.from([72, 105])], { maxNewTokens: 2, temperature: 0 });
    expect(answer!.tokens.length).toBeGreaterThan(0);
    await remote.close();
    expect(await reloadWeights(server.url, modelDir, 30_000, KEY)).toEqual({
      url: server.url,
      status: 'loaded',
    });
    const refused = await reloadWeights(server.url, modelDir, 30_000);
    expect(refused.status).toBe('failed');
  });

  it('requires a token when bound beyond loopback, before binding anything', async () => {
    const saved = process.env.TAORL_API_KEY;
    delete process.env.TAORL_API_KEY;
    try {
      const cli = capture();
      // An address of no interface here: were the check missing, listening would fail, not succeed.
      expect(await runCli(['serve', '--host', '10.255.255.1', '--port', '0'], cli.io)).toBe(2);
      expect(cli.err.join('')).toContain(
        '--host 10.255.255.1 lets other machines reach the server: set TAORL_API_KEY',
      );
    } finally {
      if (saved !== undefined) process.env.TAORL_API_KEY = saved;
    }
    const policy = createTinyPolicy({ vocabSize: tokenizer.vocabSize, maxPositionEmbeddings: 64, seed: 1 });
    await expect(
      startServer({ policy, decode, modelName: 'x', host: '10.255.255.1', port: 0 }),
    ).rejects.toThrow(/an apiKey is required/);
    policy.dispose();
  });
});

describe('taorl serve: what a reload may read', () => {
  /** A copy of the served model's folder under `dir`, with `change` applied to it. */
  function variant(dir: string, change: (folder: string) => void): string {
    mkdirSync(dir, { recursive: true });
    for (const file of ['config.json', 'model.safetensors'])
      copyFileSync(join(modelDir, file), join(dir, file));
    change(dir);
    return dir;
  }

  it('refuses folders outside the reload folder, directly or through links, and never echoes their bytes', async () => {
    const version = async () => JSON.parse((await raw('GET', '/get_model_info', auth)).body).weight_version;
    const before = await version();
    const secret = join(secrets, 'secret.txt');
    writeFileSync(secret, 'TOPSECRET-0123456789');
    const outsideModel = variant(join(secrets, 'model'), () => undefined);
    const messages: string[] = [];
    const refused = async (path: string, why: RegExp) => {
      const reply = await reload(path);
      const body = JSON.parse(reply.body) as { success: boolean; message: string };
      expect(body.success, path).toBe(false);
      expect(body.message, path).toMatch(why);
      messages.push(body.message);
    };
    await refused(outsideModel, /is outside the reload folder/);
    await refused('../secrets/model', /is outside the reload folder/);
    // Whether a path outside exists is not told.
    await refused(join(secrets, 'no-such-folder'), /is outside the reload folder/);
    symlinkSync(outsideModel, join(root, 'linked-model'));
    await refused(join(root, 'linked-model'), /is outside the reload folder/);
    const linkedConfig = variant(join(root, 'linked-config'), (dir) => {
      rmSync(join(dir, 'config.json'));
      symlinkSync(secret, join(dir, 'config.json'));
    });
    await refused(linkedConfig, /config\.json is a link out of the reload folder/);
    // Inside the folder, files that are not what they claim to be: the error names the file, not its bytes.
    const textConfig = variant(join(root, 'text-config'), (dir) =>
      copyFileSync(secret, join(dir, 'config.json')),
    );
    await refused(textConfig, /config\.json: not valid JSON/);
    const textWeights = variant(join(root, 'text-weights'), (dir) =>
      copyFileSync(secret, join(dir, 'model.safetensors')),
    );
    await refused(textWeights, /model\.safetensors: the header length exceeds the file size/);
    const leaked = readFileSync(secret).readBigUInt64LE(0).toString();
    for (const message of messages) {
      expect(message).not.toContain('TOPSECRET');
      expect(message).not.toContain(leaked);
    }
    // The served weights are untouched.
    expect(await version()).toBe(before);
  });

  it('bounds a config.json by the tensors its files hold before allocating anything', async () => {
    const huge = variant(join(root, 'huge'), (dir) => {
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 3e7 }));
    });
    const body = JSON.parse((await reload(huge)).body) as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toMatch(/config\.json implies 330000002 tensors \(num_hidden_layers 30000000\)/);
  });
});
