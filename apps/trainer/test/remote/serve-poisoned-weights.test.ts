import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { DATA_SHA256, loadCheckpoint } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionResponse } from '../../src/serve/completions.js';
import { openServedModel } from '../../src/serve/model.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import { decode, post, sharpPolicy, tokenizer } from './serve-fixture.js';

// Issue 39 item 5: weights a reload must refuse (non-finite values, data_offsets outside the data or overlapping),
// and a file rewritten in place while it is read.

const root = mkdtempSync(join(tmpdir(), 'taorl-serve-poison-'));
const dir = (name: string) => join(root, name);
const weightsFile = (name: string) => join(dir(name), 'model.safetensors');
const prompt = Array.from(tokenizer.encode('weights?'));
let server: InferenceServer<TransformerPolicy>;
/** Greedy continuation of `prompt` under folder a's weights. */
let expectedA: number[] = [];

interface Header {
  [name: string]: { dtype: string; shape: number[]; data_offsets: [number, number] };
}

/** Copies folder a to `name` with its safetensors header changed by `edit` (the data section kept). */
function withHeader(name: string, edit: (header: Header) => void): void {
  cpSync(dir('a'), dir(name), { recursive: true });
  const bytes = readFileSync(weightsFile('a'));
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + length)) as Header;
  edit(header);
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(weightsFile(name), Buffer.concat([prefix, json, bytes.subarray(8 + length)]));
}

/** A sharp policy of seed 2 with `value` written into every weight of one variable, saved as `name`. */
async function poisoned(name: string, value: number): Promise<void> {
  const policy = sharpPolicy(2);
  const [variable] = policy.trainableVariables();
  variable!.assign(tf.fill(variable!.shape, value));
  await policy.save(dir(name));
  policy.dispose();
}

/**
 * Copies folder a to `name` with every value of the tensor `tensor` set to +-`magnitude` in turn: finite weights
 * that overflow float32 inside the layer. The data's recorded SHA-256 is updated, as a save of such weights records
 * it, so the file is whole and it is the values that must be refused.
 */
function withOverflowingTensor(name: string, tensor: string, magnitude: number): void {
  cpSync(dir('a'), dir(name), { recursive: true });
  const bytes = readFileSync(weightsFile(name));
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + length)) as Header;
  const [start, end] = header[tensor]!.data_offsets;
  for (let at = 8 + length + start, i = 0; at < 8 + length + end; at += 4, i++) {
    bytes.writeFloatLE(i % 2 === 0 ? magnitude : -magnitude, at);
  }
  const metadata = (header as unknown as { __metadata__: Record<string, string> }).__metadata__;
  metadata[DATA_SHA256] = createHash('sha256')
    .update(bytes.subarray(8 + length))
    .digest('hex');
  bytes.write(JSON.stringify(header).padEnd(length), 8, 'utf8');
  writeFileSync(weightsFile(name), bytes);
}

const reload = (name: string) =>
  post<{ success: boolean; message: string }>(server.url, '/update_weights_from_disk', {
    model_path: dir(name),
  });

async function greedy(): Promise<{ ids: number[]; logprobs: unknown[] }> {
  const reply = await post<CompletionResponse>(server.url, '/v1/completions', {
    prompt,
    max_tokens: 8,
    temperature: 0,
    logprobs: 0,
    return_token_ids: true,
  });
  const choice = reply.body.choices[0]!;
  return { ids: choice.token_ids!, logprobs: choice.logprobs!.token_logprobs };
}

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  for (const [name, seed] of [
    ['a', 1],
    ['b', 2],
  ] as const) {
    const policy = sharpPolicy(seed);
    await policy.save(dir(name));
    policy.dispose();
  }
  await poisoned('nan', Number.NaN);
  await poisoned('inf', Number.POSITIVE_INFINITY);
  const model = await openServedModel({ dir: dir('a') });
  server = await startServer({
    policy: model.policy,
    decode,
    modelName: 'tiny',
    port: 0,
    reloadRoot: root,
    loadWeights: (path) => model.loadWeights(path),
    releasePolicy: (policy) => policy.dispose(),
  });
  expectedA = (await greedy()).ids;
});

afterAll(async () => {
  await server.close();
  server.batcher.policy.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('taorl serve: poisoned weights are refused and the served weights stay', () => {
  it.each([
    ['nan', /model\.safetensors: tensor "model\.embed_tokens\.weight" holds \d+ non-finite value\(s\).*NaN/],
    ['inf', /tensor "model\.embed_tokens\.weight" holds \d+ non-finite value\(s\).*Infinity/],
  ])('all-%s weights', async (name, message) => {
    const reply = await reload(name);
    expect(reply.status).toBe(400);
    expect(reply.body.success).toBe(false);
    expect(reply.body.message).toMatch(message);
    expect(reply.body.message).toMatch(/previous weights \(version 0\) stay/);
    const after = await greedy();
    expect(after.ids).toEqual(expectedA);
    expect(after.logprobs.every((p) => typeof p === 'number' && Number.isFinite(p))).toBe(true);
  });

  it('finite weights that overflow in the forward pass (+-3e38 in q_proj), at a reload and at start', async () => {
    withOverflowingTensor('overflow', 'model.layers.0.self_attn.q_proj.weight', 3e38);
    const reply = await reload('overflow');
    // It was loaded, and then every log-prob was answered as null.
    expect(reply.body.success).toBe(false);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(
      /overflow: the model's forward pass on a probe input of 16 tokens is not finite \(log-prob NaN/,
    );
    expect(reply.body.message).toMatch(/previous weights \(version 0\) stay/);
    const after = await greedy();
    expect(after.ids).toEqual(expectedA);
    expect(after.logprobs.every((p) => typeof p === 'number' && Number.isFinite(p))).toBe(true);
    await expect(openServedModel({ dir: dir('overflow') })).rejects.toThrow(
      /overflow: the model's forward pass on a probe input of 16 tokens is not finite/,
    );
  });

  it('data_offsets that are negative (into the header), past the end, or overlapping', async () => {
    withHeader('negative', (header) => {
      const norm = header['model.norm.weight']!;
      const bytes = norm.data_offsets[1] - norm.data_offsets[0];
      norm.data_offsets = [-bytes, 0];
    });
    withHeader('past-end', (header) => {
      const norm = header['model.norm.weight']!;
      norm.data_offsets = [norm.data_offsets[0] + 1e6, norm.data_offsets[1] + 1e6];
    });
    withHeader('overlap', (header) => {
      header['model.layers.0.post_attention_layernorm.weight']!.data_offsets = [
        ...header['model.layers.0.input_layernorm.weight']!.data_offsets,
      ];
    });
    const cases: [string, RegExp][] = [
      ['negative', /tensor "model\.norm\.weight" data_offsets \[-\d+, 0\] do not hold/],
      ['past-end', /tensor "model\.norm\.weight" data_offsets \[\d+, \d+\] do not hold/],
      [
        'overlap',
        /tensors "model\.layers\.0\.\w+_layernorm\.weight" and "model\.layers\.0\.\w+_layernorm\.weight" overlap/,
      ],
    ];
    for (const [name, message] of cases) {
      const reply = await reload(name);
      expect(reply.body.success, name).toBe(false);
      expect(reply.body.message, name).toMatch(message);
    }
    expect((await greedy()).ids).toEqual(expectedA);
  });

  it('a file rewritten in place while it is read loads as one version or the other, never a mix', async () => {
    cpSync(dir('a'), dir('torn'), { recursive: true });
    const versions = [readFileSync(weightsFile('a')), readFileSync(weightsFile('b'))];
    // Same config, so the same header: the versions differ in their data bytes only.
    expect(versions[0]!.length).toBe(versions[1]!.length);
    const reference = await Promise.all(['a', 'b'].map((name) => loadCheckpoint(dir(name))));
    const stop = new Int32Array(new SharedArrayBuffer(4));
    // The writer rewrites the file in 4 KiB pieces a millisecond apart (a rewrite spans many reads), then pauses.
    const writer = new Worker(
      `const { openSync, writeSync } = require('node:fs');
       const { file, versions, stop } = require('node:worker_threads').workerData;
       const fd = openSync(file, 'r+');
       const nap = (ms) => Atomics.wait(stop, 0, 0, ms);
       for (let round = 0; Atomics.load(stop, 0) === 0; round++) {
         const bytes = versions[round % 2];
         for (let at = 0; at < bytes.length; at += 4096) {
           writeSync(fd, bytes, at, Math.min(4096, bytes.length - at), at);
           nap(1);
         }
         nap(120);
       }`,
      { eval: true, workerData: { file: weightsFile('torn'), versions, stop } },
    );
    const outcomes: string[] = [];
    try {
      for (let attempt = 0; attempt < 16; attempt++) {
        const loaded = await loadCheckpoint(dir('torn'));
        const same = (i: number) =>
          [...loaded.tensors].every(([name, values]) =>
            Buffer.from(values.buffer).equals(Buffer.from(reference[i]!.tensors.get(name)!.buffer)),
          );
        outcomes.push(same(0) ? 'a' : same(1) ? 'b' : 'mixed');
        await new Promise((resolve) => setTimeout(resolve, 37));
      }
    } finally {
      Atomics.store(stop, 0, 1);
      await writer.terminate();
    }
    expect(outcomes.filter((outcome) => outcome === 'mixed')).toEqual([]);
    // Both versions were seen, so the loads overlapped the rewrites.
    expect(new Set(outcomes)).toEqual(new Set(['a', 'b']));
  });
});
