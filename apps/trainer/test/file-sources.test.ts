import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, openSession, parseConfig, problemSource, type Session } from '../src/index.js';
import { sftExamples } from '../src/workflows/sft-run.js';

const dir = mkdtempSync(join(tmpdir(), 'taorl-files-'));
const verl = (id: string, question: string, gold: string) =>
  JSON.stringify({
    data_source: 'test',
    prompt: [{ role: 'user', content: question }],
    ability: 'math',
    reward_model: { style: 'rule', ground_truth: gold },
    extra_info: { id },
  });
writeFileSync(
  join(dir, 'train.jsonl'),
  `${['a', 'b', 'c'].map((id, i) => verl(id, `Q: ${i}+1=?`, `${i + 1}`)).join('\n')}\n`,
);
writeFileSync(join(dir, 'test.jsonl'), `${verl('t', 'Q: 9+1=?', '10')}\n`);
writeFileSync(join(dir, 'bad.jsonl'), `${verl('a', 'Q', '1')}\n{"prompt": "not a list"}\n`);
const conversation = {
  messages: [
    { role: 'user', content: 'Q: 2*3=?' },
    { role: 'assistant', content: '```python\nprint(2*3)\n```\n```output' },
    { role: 'tool', content: '6' },
    { role: 'assistant', content: 'A: \\boxed{6}' },
  ],
};
writeFileSync(join(dir, 'sft.jsonl'), `${JSON.stringify(conversation)}\n`);

let session: Session;
const config = (extra: string[]) =>
  parseConfig(
    [
      'tool: {sandbox: {name: local, workers: 1, preload: []}}',
      'task:',
      '  name: file',
      `  file: ${JSON.stringify(join(dir, 'train.jsonl'))}`,
      `  testFile: ${JSON.stringify(join(dir, 'test.jsonl'))}`,
      'rl: {maxGenBatches: 2}',
      'sft:',
      '  source: file',
      `  file: ${JSON.stringify(join(dir, 'sft.jsonl'))}`,
    ].join('\n'),
    'files.yaml',
    extra,
  );

beforeAll(async () => {
  session = await openSession(config([]), 'files.yaml');
});
afterAll(async () => {
  await session?.close();
});

describe('prompts and SFT data from files', () => {
  it('draws every training prompt once per epoch in a seeded order, and reads the held-out file', async () => {
    const problems = await problemSource(session);
    const epoch = [...problems.train(1, 0, 2), problems.train(1, 1, 2)[0]!];
    expect(epoch.map((p) => p.id).sort()).toEqual(['a', 'b', 'c']);
    expect(problems.train(1, 0, 2)).toEqual(problems.train(1, 0, 2));
    const golds = Object.fromEntries(epoch.map((p) => [p.id, p.gold]));
    expect(golds).toEqual({ a: '1', b: '2', c: '3' });
    const [held] = problems.test();
    expect(held!.gold).toBe('10');
    expect(session.tokenizer.decode(held!.promptIds)).toBe(
      '<|im_start|>user\nQ: 9+1=?<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('names the config field and the file line of a bad record', async () => {
    const bad = await openSession(
      config([`task.file=${JSON.stringify(join(dir, 'bad.jsonl'))}`]),
      'files.yaml',
    );
    try {
      const error = await problemSource(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).field).toBe('task.file');
      expect((error as Error).message).toContain('bad.jsonl:2');
    } finally {
      await bad.close();
    }
  });

  it('turns SFT conversations into examples with loss only on assistant tokens', async () => {
    const [example] = await sftExamples(session);
    const text = session.tokenizer.decode(example!.inputIds);
    const trained = session.tokenizer.decode(example!.inputIds.filter((_, i) => example!.lossMask[i] === 1));
    expect(text).toContain('```output\n6\n```\n');
    expect(trained).toBe('```python\nprint(2*3)\n```\n```outputA: \\boxed{6}<|im_end|>');
  });
});
