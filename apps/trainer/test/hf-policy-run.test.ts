import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@taorl/data';
import { afterAll, describe, expect, it } from 'vitest';
import { qwen3Folder } from '../../../packages/model/test/support/qwen3-folder.js';
import { loadConfig, runCli } from '../src/index.js';
import { openSession } from '../src/session/session.js';
import { capture } from './support/capture-io.js';

// `taorl sft` from a Hugging Face folder (model.source: hf) saves <outDir>/policy as a folder that is itself a
// model.path: a session opened on it has the original folder's tokenizer and chat template.

const root = mkdtempSync(join(tmpdir(), 'taorl-hf-policy-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const oneSandboxWorker = 'tool.sandbox={name: local, workers: 1, preload: []}';
const conversation: ChatMessage[] = [
  { role: 'system', content: 'Use the tool.' },
  { role: 'user', content: 'What is 12 * 34? Réponds en français.' },
];

/** What a session on `model.path` makes of the conversation: its prompt ids, vocabulary and context. */
async function promptOf(path: string) {
  const config = loadConfig(undefined, [
    'model.source=hf',
    `model.path=${JSON.stringify(path)}`,
    'workers=1',
    oneSandboxWorker,
  ]);
  const session = await openSession(config, 'hf.yaml');
  try {
    return {
      ids: Array.from(session.promptIds(conversation)),
      text: session.template.render(conversation, { addGenerationPrompt: true }),
      vocabSize: session.vocabSize,
      contextLength: session.contextLength,
    };
  } finally {
    await session.close();
  }
}

describe('a run from a Hugging Face folder', () => {
  it('saves a policy/ that loads as model.path with source hf, with the same tokenizer and template', async () => {
    const model = qwen3Folder(join(root, 'qwen3'));
    const outDir = join(root, 'run');
    const run = capture();
    const args = [
      'sft',
      '--out',
      outDir,
      '--set',
      'model.source=hf',
      '--set',
      `model.path=${JSON.stringify(model)}`,
    ];
    // No optimizer step (a 151936-row embedding trains slowly on wasm): the run still opens and saves its policy.
    for (const set of ['sft.steps=0', 'sft.examples=2', 'workers=1', oneSandboxWorker])
      args.push('--set', set);
    expect(await runCli(args, run.io), run.err.join('')).toBe(0);
    const policy = join(outDir, 'policy');
    expect(readdirSync(policy).sort()).toEqual([
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const original = await promptOf(model);
    const saved = await promptOf(policy);
    expect(saved).toEqual(original);
    expect(saved.text).toContain('<|im_start|>assistant');
    expect(saved.vocabSize).toBe(151936);
  }, 180_000);
});
