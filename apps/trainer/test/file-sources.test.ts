import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getToolFormat, registerToolFormat, tagsFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, openSession, parseConfig, problemSource, type Session } from '../src/index.js';
import { BOXED_ANSWER_RULE } from '../src/task/tool-instructions.js';
import { sftExamples } from '../src/workflows/sft-run.js';

const dir = mkdtempSync(join(tmpdir(), 'taorl-files-'));
const verl = (id: string, question: string, gold: string, system?: string, systemAt = 0) =>
  JSON.stringify({
    data_source: 'test',
    prompt: [{ role: 'user', content: question }].toSpliced(
      systemAt,
      0,
      ...(system === undefined ? [] : [{ role: 'system', content: system }]),
    ),
    ability: 'math',
    reward_model: { style: 'rule', ground_truth: gold },
    extra_info: { id },
  });
writeFileSync(
  join(dir, 'train.jsonl'),
  `${['a', 'b', 'c'].map((id, i) => verl(id, `Q: ${i}+1=?`, `${i + 1}`)).join('\n')}\n`,
);
writeFileSync(join(dir, 'test.jsonl'), `${verl('t', 'Q: 9+1=?', '10')}\n`);
writeFileSync(join(dir, 'system.jsonl'), `${verl('s', 'Q: 9+1=?', '10', 'You are terse.')}\n`);
writeFileSync(join(dir, 'late-system.jsonl'), `${verl('late', 'Q: 9+1=?', '10', 'You are terse.', 1)}\n`);
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

  describe('tool.instructions', () => {
    // The session's real tokenizer and chat template (the embedded model's), with another config's prompts.
    const heldOutPrompt = async (extra: string[]) => {
      const [held] = (await problemSource({ ...session, config: config(extra) })).test();
      return held!.promptIds;
    };
    const chat = (system: string) =>
      `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\nQ: 9+1=?<|im_end|>\n<|im_start|>assistant\n`;

    it.each(['markdown', 'hermes', 'tags'])(
      'auto puts the %s format instructions and the boxed-answer rule in a system message',
      async (name) => {
        const { instructions } = getToolFormat(name);
        const ids = await heldOutPrompt([`tool.format=${name}`, 'tool.instructions=auto']);
        const expected = chat(`${instructions}\n\n${BOXED_ANSWER_RULE}`);
        expect([...ids]).toEqual([...session.tokenizer.encode(expected)]);
        expect(session.tokenizer.decode(ids)).toBe(expected);
      },
    );

    it('auto gives a code problem the format instructions alone: its user message says where the program goes', async () => {
      const [held] = (
        await problemSource({
          ...session,
          config: parseConfig('task: {name: code}\ntool: {instructions: auto}\n', 'code.yaml'),
        })
      ).test();
      const text = session.tokenizer.decode(held!.promptIds);
      expect(
        text.startsWith(`<|im_start|>system\n${getToolFormat('markdown').instructions}<|im_end|>\n`),
      ).toBe(true);
      expect(text).toContain('final, complete Python 3 program');
      expect(text).not.toContain('boxed');
    });

    it('none leaves the prompt as it is; a text of your own is the whole system message', async () => {
      expect(session.tokenizer.decode(await heldOutPrompt(['tool.instructions=none']))).toBe(
        '<|im_start|>user\nQ: 9+1=?<|im_end|>\n<|im_start|>assistant\n',
      );
      const own = await heldOutPrompt(['tool.instructions="Run Python in ```python blocks."']);
      expect(session.tokenizer.decode(own)).toBe(chat('Run Python in ```python blocks.'));
    });

    it("adds to a record's leading system message, and refuses one that is not first", async () => {
      const system = JSON.stringify(join(dir, 'system.jsonl'));
      const merged = await heldOutPrompt([`task.testFile=${system}`, 'tool.instructions=auto']);
      expect(session.tokenizer.decode(merged)).toBe(
        chat(`You are terse.\n\n${getToolFormat('markdown').instructions}\n\n${BOXED_ANSWER_RULE}`),
      );
      // Without tool.instructions the record's system message is rendered as it is.
      expect(session.tokenizer.decode(await heldOutPrompt([`task.testFile=${system}`]))).toBe(
        chat('You are terse.'),
      );
      const late = join(dir, 'late-system.jsonl');
      const error = await heldOutPrompt([
        `task.testFile=${JSON.stringify(late)}`,
        'tool.instructions=auto',
      ]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        `files.yaml: task.testFile: ${late}, prompt "late": a system message that is not the first message: ` +
          'tool.instructions adds its text to a leading system message only; move it first, or set ' +
          'tool.instructions: none',
      );
    });

    it('auto names a format that has no instructions', async () => {
      registerToolFormat(
        { ...tagsFormat, name: 'tags-unexplained', instructions: undefined },
        { replace: true },
      );
      const error = await heldOutPrompt(['tool.format=tags-unexplained', 'tool.instructions=auto']).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        'files.yaml: tool.instructions: tool format "tags-unexplained" has no instructions text: write the ' +
          'system message yourself, or register the format with one (registerToolFormat({ ..., instructions }))',
      );
    });
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
