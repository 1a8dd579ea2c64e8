import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionResponse } from '../../src/serve/completions.js';
import type { GenerateResponse } from '../../src/serve/generate.js';
import { openServedModel } from '../../src/serve/model.js';
import { startServer } from '../../src/serve/server.js';
import { decode, GatedPolicy, get, post, sharpPolicy, tokenizer, until } from './serve-fixture.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-serve-weights-'));
const dirs = { a: join(root, 'a'), b: join(root, 'b'), short: join(root, 'short') };
const prompt = Array.from(tokenizer.encode('weights?'));
/** Greedy continuations of `prompt` under the weights of folders a and b. */
const expected: Record<'a' | 'b', number[]> = { a: [], b: [] };

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  for (const [name, seed] of [
    ['a', 1],
    ['b', 2],
  ] as const) {
    const policy = sharpPolicy(seed);
    await policy.save(dirs[name]);
    policy.dispose();
    const reloaded = await loadPolicy(dirs[name]);
    const [out] = await reloaded.generate([Int32Array.from(prompt)], { maxNewTokens: 8, temperature: 0 });
    expected[name] = Array.from(out!.tokens);
    reloaded.dispose();
  }
  // Same vocabulary, another context length: a shape the served model cannot take.
  const short = createTinyPolicy({ vocabSize: tokenizer.vocabSize, maxPositionEmbeddings: 32, seed: 1 });
  await short.save(dirs.short);
  short.dispose();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('taorl serve: /update_weights_from_disk', () => {
  it('swaps weights between batches, counts versions, and keeps the old weights when a folder is bad', async () => {
    expect(expected.a).not.toEqual(expected.b);
    const model = await openServedModel({ dir: dirs.a });
    const loaded: string[] = [];
    const released: GatedPolicy<TransformerPolicy>[] = [];
    const first = new GatedPolicy(model.policy);
    const server = await startServer({
      policy: first,
      decode,
      modelName: 'tiny',
      modelPath: dirs.a,
      port: 0,
      reloadRoot: root,
      loadWeights: async (dir) => {
        const policy = new GatedPolicy(await model.loadWeights(dir));
        loaded.push(dir);
        return policy;
      },
      releasePolicy: (policy) => {
        released.push(policy);
        policy.inner.dispose();
      },
    });
    const greedy = async () => {
      const reply = await post<CompletionResponse>(server.url, '/v1/completions', {
        prompt,
        max_tokens: 8,
        temperature: 0,
        return_token_ids: true,
      });
      return { ids: reply.body.choices[0]!.token_ids, version: reply.body.weight_version };
    };
    const update = (path: string) =>
      post<{ success: boolean; message: string }>(server.url, '/update_weights_from_disk', {
        model_path: path,
      });
    try {
      // A request in flight when the reload arrives finishes on the old weights; one queued behind it gets the new.
      first.hold();
      const inFlight = greedy();
      await until(() => first.calls.length === 1);
      const swapped = update(dirs.b);
      await until(() => loaded.length === 1);
      const queued = greedy();
      await until(() => server.batcher.queued === 1);
      first.release();
      expect(await inFlight).toEqual({ ids: expected.a, version: 0 });
      const reply = await swapped;
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ success: true, message: expect.stringMatching(/weight version 1/) });
      expect(await queued).toEqual({ ids: expected.b, version: 1 });
      expect(released).toEqual([first]);
      const info = await get<Record<string, unknown>>(server.url, '/get_model_info');
      expect(info.body).toMatchObject({ model_path: dirs.b, weight_version: 1 });
      const sglang = await post<GenerateResponse>(server.url, '/generate', {
        input_ids: prompt,
        sampling_params: { max_new_tokens: 8, temperature: 0 },
      });
      expect(sglang.body.meta_info.weight_version).toBe(1);
      expect(sglang.body.output_ids).toEqual(expected.b);

      // A missing folder and a folder of another shape are refused; the weights of version 1 stay.
      const missing = await update(join(root, 'missing'));
      expect(missing.status).toBe(400);
      expect(missing.body.success).toBe(false);
      expect(missing.body.message).toMatch(/missing does not exist.*previous weights \(version 1\) stay/);
      const wrongShape = await update(dirs.short);
      expect(wrongShape.body.success).toBe(false);
      expect(wrongShape.body.message).toMatch(/maxPositionEmbeddings: 64 served vs 32 in the folder/);
      expect(await greedy()).toEqual({ ids: expected.b, version: 1 });
      expect(released).toHaveLength(1);

      // And back to a: version 2.
      expect((await update(dirs.a)).body.success).toBe(true);
      expect(await greedy()).toEqual({ ids: expected.a, version: 2 });
    } finally {
      await server.close();
      server.batcher.policy.inner.dispose();
    }
  });

  it('refuses a reload when the server was started without a loader', async () => {
    const policy = sharpPolicy(1);
    const server = await startServer({ policy, decode, modelName: 'tiny', port: 0 });
    try {
      const reply = await post<{ success: boolean; message: string }>(
        server.url,
        '/update_weights_from_disk',
        {
          model_path: dirs.b,
        },
      );
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        success: false,
        message:
          'this server cannot reload weights (start it with a reload folder: taorl serve --reload-dir)',
      });
    } finally {
      await server.close();
      policy.dispose();
    }
  });
});
