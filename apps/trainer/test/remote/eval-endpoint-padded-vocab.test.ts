import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type TransformerPolicy } from '../../src/index.js';
import { type InferenceServer, startServer } from '../../src/serve/server.js';
import { capture } from '../support/capture-io.js';
import { byteTokenizer, PADDED_VOCAB, paddedVocabPolicy } from '../support/padded-vocab.js';

// An inference server that samples padding ids, as vLLM may for Qwen3 (151936 rows, 151669 tokens): here a taorl
// serve told nothing of the tokenizer's size, decoding padding ids as '' the way vLLM does.

const root = mkdtempSync(join(tmpdir(), 'taorl-eval-padded-'));
const modelDir = join(root, 'model');
let policy: TransformerPolicy;
let server: InferenceServer;
const sampledIds: number[] = [];

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  policy = paddedVocabPolicy(6, 512);
  await policy.save(modelDir);
  server = await startServer({
    policy,
    decode: (ids, options) => {
      sampledIds.push(...ids);
      return byteTokenizer.decode(
        ids.filter((id) => id < byteTokenizer.vocabSize),
        options,
      );
    },
    modelName: 'padded',
    port: 0,
  });
});
afterAll(async () => {
  await server.close();
  policy.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('taorl eval --endpoint when the server returns padding ids', () => {
  it("accepts ids up to the model's vocab_size and decodes the padding ones as nothing", async () => {
    const out = join(root, 'eval');
    const { io, err } = capture();
    const code = await runCli(
      [
        'eval',
        '--endpoint',
        server.url,
        '--out',
        out,
        '--set',
        `model.path=${JSON.stringify(modelDir)}`,
        '--set',
        'task.testSize=2',
        '--set',
        'rollout.maxResponseTokens=12',
        '--set',
        'tool.sandbox={name: local, workers: 1, preload: []}',
      ],
      io,
    );
    expect(code, err.join('')).toBe(0);
    // The server did sample padding ids, and the run still finished.
    expect(sampledIds.some((id) => id >= byteTokenizer.vocabSize && id < PADDED_VOCAB)).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'held-out.json'), 'utf8')).problems).toBe(2);
  }, 120_000);
});
