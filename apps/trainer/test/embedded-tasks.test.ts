import { arithUserMessage } from '@taorl/data';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSession, parseConfig, problemSource, type Session } from '../src/index.js';
import { arithProblems, chainProblems } from '../src/session/problem-source.js';
import { deriveSeed } from '../src/util/seeds.js';
import { sftExamples } from '../src/workflows/sft-run.js';

const configOf = (task: string) =>
  parseConfig(
    [
      'seed: 3',
      'tool: {sandbox: {name: local, workers: 1, preload: []}}',
      `task: {name: ${task}, testSize: 6}`,
      'sft: {source: generator, examples: 4}',
    ].join('\n'),
    `${task}.yaml`,
  );

let session: Session;
beforeAll(async () => {
  session = await openSession(configOf('arith-tool'), 'arith-tool.yaml');
});
afterAll(async () => {
  await session?.close();
});

describe.each([
  ['arith-tool', arithProblems],
  ['chain-tool', chainProblems],
] as const)('the embedded %s task (real sandbox)', (task, generate) => {
  const taskSession = () => ({ ...session, config: configOf(task), source: `${task}.yaml` });

  it("draws its generator's problems: the test split per seed, the train split per step and batch", async () => {
    const current = taskSession();
    const problems = await problemSource(current);
    const { seed } = current.config;
    const test = generate(current, 'test', 6, deriveSeed(seed, 'test-problems'));
    const train = generate(current, 'train', 5, deriveSeed(seed, 'rl-problems', 2, 1));
    const held = problems.test();
    expect(held.map(({ id, gold, level, requiredCalls }) => ({ id, gold, level, requiredCalls }))).toEqual(
      test.map(({ id, answer, level, steps }) => ({ id, gold: answer, level, requiredCalls: steps.length })),
    );
    expect(problems.train(2, 1, 5).map((problem) => problem.id)).toEqual(train.map((problem) => problem.id));
    expect(problems.train(2, 0, 5).map((problem) => problem.id)).not.toEqual(
      train.map((problem) => problem.id),
    );
    // The prompt is the question as the user's message, and its ids are that conversation's.
    const messages = held[0]!.promptMessages ?? [];
    expect(messages.at(-1)).toEqual({ role: 'user', content: arithUserMessage(test[0]!) });
    expect(held[0]!.promptIds).toEqual(session.promptIds(messages));
    expect(session.tokenizer.decode(held[0]!.promptIds)).toContain(test[0]!.question);
  });

  it('makes its SFT demonstrations in the sandbox, under an "sft traces" bar that ends with their count', async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      written.push(String(text));
      return true;
    });
    const examples = await sftExamples(taskSession()).finally(() => write.mockRestore());
    expect(examples.length).toBeGreaterThan(0);
    expect(written.join('')).toMatch(
      new RegExp(`sft traces \\[#+\\] (\\d+)/\\1 .* \\| ${examples.length} traces\\n`),
    );
    // Trained tokens with the tool's output between them untrained: the sandbox ran the demonstrations' code.
    const withToolOutput = examples.filter(({ lossMask }) => {
      const trained = lossMask.indexOf(1);
      return trained > 0 && lossMask.subarray(trained).includes(0);
    });
    expect(withToolOutput.length).toBeGreaterThan(0);
  });
});
