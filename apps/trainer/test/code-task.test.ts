import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, ChatTemplate } from '@taorl/data';
import { rolloutAndGrade, samplesOf, sandboxToolEnvironment } from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../../../packages/rollout/test/support/scripted-policy.js';
import { MetricsWriter, parseConfig, type RlStepMetrics, readMetrics } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { embeddedCodeProblems } from '../src/task/embedded-code-task.js';
import { runRl } from '../src/workflows/rl-run.js';

const tokenizer = new ByteTokenizer();
const template = ChatTemplate.embedded();
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the code task: programs judged by their tests as the reward (real sandbox)', () => {
  it('rewards the program that passes every test, from the last python block of the whole response', async () => {
    // Five problems, one of each embedded kind; the scripted policy writes a sum program (run as a tool call,
    // without input, so its observation is an EOFError), then closes: only the sum problem's reward is 1.
    const problems = embeddedCodeProblems(7, 'train', 5).map((problem) => ({
      id: problem.id,
      promptIds: tokenizer.encode(
        template.render([{ role: 'user', content: problem.question }], { addGenerationPrompt: true }),
      ),
      gold: `${problem.task.tests.length} tests`,
      code: problem.task,
    }));
    const policy = new ScriptedPolicy(
      tokenizer,
      ['```python\na, b = map(int, input().split())\nprint(a + b)\n```\n```output', 'Done.<|im_end|>'],
      '```output\n',
    );
    const parts = {
      tokenizer,
      tools: sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 256 }),
      sandbox,
    };
    const rolled = await rolloutAndGrade(policy, parts, samplesOf(problems, 2), {
      maxTurns: 2,
      maxResponseTokens: 512,
      sampling: { temperature: 1, topP: 1, topK: 0 },
      seed: 1,
      lanes: 1,
    });
    expect(rolled.trajectories.map((trajectory) => trajectory.reward)).toEqual([
      1, 1, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    expect(rolled.trajectories[0]!.toolCalls).toHaveLength(1);
    expect(rolled.trajectories[0]!.toolCalls[0]!.output).toMatch(/EOFError/);
    expect(rolled.grades[0]).toMatchObject({ extracted: 'a, b = map(int, input().split())\nprint(a + b)' });
    expect(rolled.grades[2]!.gold).toMatch(/^wrong_answer on test 1 of 3$/);
  });

  it('trains the tiny model on the embedded code task and on a code JSONL, refusing a malformed one', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-code-task-'));
    const file = join(outDir, 'problems.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'echo', question: 'Print the input.', tests: [{ input: 'hi\n', output: 'hi\n' }] })}\n`,
    );
    const configText = (task: string) =>
      [
        'seed: 4',
        'backend: wasm',
        `outDir: ${JSON.stringify(outDir)}`,
        `task: ${task}`,
        'tool: {sandbox: {name: local, workers: 2, preload: []}}',
        'workers: 1',
        'rollout: {maxResponseTokens: 24, maxTurns: 1}',
        'rl: {steps: 1, groups: 1, groupSize: 2, maxGenBatches: 1, filters: [], microBatchRows: 2}',
      ].join('\n');
    for (const task of ['{name: code}', `{name: code, file: ${JSON.stringify(file)}}`]) {
      const session = await openSession(parseConfig(configText(task), 'code.yaml'), 'code.yaml');
      try {
        const writer = new MetricsWriter(join(outDir, `metrics-${task.length}.jsonl`));
        await runRl(session, await problemSource(session), writer, { quiet: true });
        const [line] = readMetrics(writer.path) as RlStepMetrics[];
        expect(line).toMatchObject({ step: 1, trajectoriesKept: 2 });
        expect(line!.reward).toBeLessThanOrEqual(0);
      } finally {
        await session.close();
      }
    }
    writeFileSync(file, `${JSON.stringify({ id: 'bad', question: 'q', tests: [] })}\n`);
    const session = await openSession(
      parseConfig(configText(`{name: code, file: ${JSON.stringify(file)}}`), 'code.yaml'),
      'code.yaml',
    );
    try {
      await expect(problemSource(session)).rejects.toThrow(
        `task.file: ${file}:1: field "tests" must be a non-empty list of {input, output}`,
      );
      // A functional test whose input is not JSON would fail every program, right ones too: refused before training.
      const notJson = {
        id: 'pair',
        question: 'q',
        method: 'pair',
        tests: [{ input: 'x = 3', output: '[3, 3]' }],
      };
      writeFileSync(file, `${JSON.stringify(notJson)}\n`);
      await expect(problemSource(session)).rejects.toThrow(
        `task.file: ${file}:1: tests[0].input line 1 is not JSON (expected a value at offset 0): "x = 3"`,
      );
    } finally {
      await session.close();
    }
  });
});
