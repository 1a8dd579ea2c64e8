import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ByteTokenizer, ChatTemplate, type Tokenizer } from '@taorl/data';
import type { CodeJudgeMode } from '@taorl/eval';
import { sandboxToolEnvironment } from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBenchmarkSet } from '../src/bench-eval/benchmark-set.js';
import type { BenchmarkSampleRecord } from '../src/bench-eval/results-file.js';
import { evalCommand } from '../src/cli/eval-command.js';
import { evaluateBenchmarks, parseConfig } from '../src/index.js';
import { TextPolicy } from './support/text-policy.js';

// Fixtures in GPQA's and LiveCodeBench's formats, written for taorl (packages/eval/test/fixtures/code-and-choice).
const fixtures = fileURLToPath(
  new URL('../../../packages/eval/test/fixtures/code-and-choice/', import.meta.url),
);
const tokenizer = new ByteTokenizer();
const template = ChatTemplate.embedded();
let sandbox: Sandbox;
let dataDir: string;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2, preload: [] });
  dataDir = mkdtempSync(join(tmpdir(), 'taorl-bench-choice-code-'));
  mkdirSync(join(dataDir, 'gpqa_diamond'));
  copyFileSync(join(fixtures, 'gpqa-format.csv'), join(dataDir, 'gpqa_diamond', 'gpqa_diamond.csv'));
  mkdirSync(join(dataDir, 'livecodebench'));
  copyFileSync(join(fixtures, 'livecodebench-format.jsonl'), join(dataDir, 'livecodebench', 'test6.jsonl'));
});
afterAll(async () => {
  await sandbox?.close();
});

/** The right answers of the fixtures: an option's text, or a program. */
const rightOptions = ['1', 'Nitrogen', '46'];
const programs: Record<string, string> = {
  'Read a and b; print a + b.': 'a, b = map(int, input().split())\nprint(a + b)',
  'Return the indices of two numbers adding up to target.':
    'class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n' +
    '        for i, v in enumerate(nums):\n            if target - v in seen:\n                return [seen[target - v], i]\n' +
    '            seen[v] = i',
};

/**
 * Answers the fixtures' problems by the key, in the markdown tool format: a multiple-choice problem by the letter
 * of the right option (or, when `wrong`, another letter); a code problem by writing the program in a python block
 * (which also runs as a tool call, without input), then a closing sentence after its output.
 */
const answerKeyPolicy = (tok: Tokenizer, wrong: boolean, answers = programs) =>
  new TextPolicy(tok, (prefix) => {
    const response = prefix.split('<|im_start|>assistant\n').at(-1)!;
    if (response.includes('```output\n')) return 'That is my program.<|im_end|>';
    const title = Object.keys(programs).find((statement) => prefix.includes(statement));
    const question = prefix.split('<|im_start|>user\n').at(-1)!;
    const options = [...question.matchAll(/^([A-D])\) (.*)$/gm)];
    if (options.length > 0) {
      const right = options.find((option) => rightOptions.includes(option[2]!))![1]!;
      const letter = wrong ? options.find((option) => option[1] !== right)![1]! : right;
      return `Thinking.\nAnswer: ${letter}<|im_end|>`;
    }
    const program = title === undefined ? 'print(0)' : answers[title]!;
    return `Here it is.\n\`\`\`python\n${wrong ? 'print(-1)' : program}\n\`\`\`\n\`\`\`output`;
  });

async function evaluateWith(
  wrong: boolean,
  judging: { mode?: CodeJudgeMode; answers?: Record<string, string> } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'taorl-bench-results-'));
  const parts = {
    tokenizer,
    template,
    tools: sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 512 }),
    sandbox,
  };
  const result = await evaluateBenchmarks(answerKeyPolicy(tokenizer, wrong, judging.answers), parts, {
    model: 'answer-key',
    benchmarks: ['gpqa_diamond', 'livecodebench'],
    codeWindow: { from: '2025-01-01', to: '2025-05-01' },
    k: 2,
    dataDir,
    resultsPath: join(dir, 'results.jsonl'),
    toolFormat: 'markdown',
    maxTurns: 2,
    maxResponseTokens: 2048,
    seed: 3,
    quiet: true,
    ...(judging.mode === undefined ? {} : { codeJudgeMode: judging.mode }),
  });
  const records = readFileSync(result.resultsPath, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as BenchmarkSampleRecord);
  return { result, records };
}

describe('benchmark evaluation of GPQA-format and LiveCodeBench-format sets (real sandbox)', () => {
  it('grades letters and judges programs on public and private tests', async () => {
    const { result, records } = await evaluateWith(false);
    expect(result.reports.map((report) => [report.benchmark, report.problems, report.avgAtK])).toEqual([
      ['gpqa_diamond', 3, 1],
      ['livecodebench', 2, 1],
    ]);
    const sum = records.find((record) => record.problemId === 'fx001')!;
    expect(sum.extracted).toBe(programs['Read a and b; print a + b.']);
    expect(sum.toolCalls).toBe(1);
  });

  it('scores wrong letters and wrong programs as wrong', async () => {
    const { result, records } = await evaluateWith(true);
    expect(result.reports.map((report) => report.avgAtK)).toEqual([0, 0]);
    const pair = records.find((record) => record.problemId === 'fx002')!;
    expect(pair).toMatchObject({ correct: false, gradeReason: 'not_equivalent' });
  });

  it('judges in the faithful mode unless told, and in the livecodebench mode as its runner does', async () => {
    // Right, but LiveCodeBench's in-process runner gives open(0) an empty standard input.
    const answers = {
      ...programs,
      'Read a and b; print a + b.': 'a, b = map(int, open(0).read().split())\nprint(a + b)',
    };
    const faithful = await evaluateWith(false, { answers });
    expect(faithful.result.config.codeJudgeMode).toBe('faithful');
    expect(faithful.records.find((record) => record.problemId === 'fx001')?.correct).toBe(true);
    const lcb = await evaluateWith(false, { answers, mode: 'livecodebench' });
    expect(lcb.result.config.codeJudgeMode).toBe('livecodebench');
    expect(lcb.records.find((record) => record.problemId === 'fx001')).toMatchObject({ correct: false });
    expect(lcb.records.find((record) => record.problemId === 'fx002')?.correct).toBe(true);
  });

  it('says where a benchmark a user brings is missing, and reads only the window asked for', async () => {
    await expect(loadBenchmarkSet(['gpqa_diamond'], tmpdir(), { seed: 0 })).rejects.toThrow(
      /gpqa_diamond: not found in .*; taorl ships no copy of it\. Put gpqa_diamond\.csv/,
    );
    // A folder with other files lists them, and names one way to get the release.
    const elsewhere = mkdtempSync(join(tmpdir(), 'taorl-lcb-'));
    mkdirSync(join(elsewhere, 'livecodebench', 'notes'), { recursive: true });
    writeFileSync(join(elsewhere, 'livecodebench', 'notes', 'README.md'), 'read me');
    writeFileSync(join(elsewhere, 'livecodebench', 'test6.json'), '[]');
    await expect(loadBenchmarkSet(['livecodebench'], elsewhere, { seed: 0 })).rejects.toThrow(
      `livecodebench: not found in ${join(elsewhere, 'livecodebench')}; taorl ships no copy of it. It holds only ` +
        'notes/README.md, test6.json. Put',
    );
    await expect(loadBenchmarkSet(['livecodebench'], elsewhere, { seed: 0 })).rejects.toThrow(
      `e.g.: huggingface-cli download livecodebench/code_generation_lite test6.jsonl --repo-type dataset --local-dir ${join(elsewhere, 'livecodebench')}`,
    );
    // Hugging Face copies sit in subfolders, and may be gzipped.
    mkdirSync(join(elsewhere, 'livecodebench', 'data'));
    writeFileSync(
      join(elsewhere, 'livecodebench', 'data', 'test6.jsonl.gz'),
      gzipSync(readFileSync(join(fixtures, 'livecodebench-format.jsonl'))),
    );
    const gzipped = await loadBenchmarkSet(['livecodebench'], elsewhere, { seed: 0 });
    expect(gzipped.items.map((item) => item.id).slice(0, 2)).toEqual(['fx001', 'fx002']);
    const all = await loadBenchmarkSet(['livecodebench', 'aime24'], dataDir, { seed: 0 });
    expect(all.items.map((item) => item.id).slice(0, 3)).toEqual(['fx001', 'fx002', 'fx003']);
    expect(all.sources.get('aime24')).toMatch(/packages\/eval\/data\/benchmarks\/aime24\/test\.jsonl$/);
  });

  it('checks --window before anything runs', () => {
    const config = parseConfig('seed: 1', 'eval.yaml');
    const check = (flags: Record<string, string>) => () =>
      evalCommand.checkFlags?.(flags, config, 'eval.yaml');
    expect(check({ bench: 'livecodebench', window: '2025-01-01:2025-05-01' })).not.toThrow();
    expect(check({ bench: 'livecodebench', window: ':2025-05-01' })).not.toThrow();
    expect(check({ bench: 'livecodebench', window: '2025/01/01' })).toThrow(/--window: expected FROM:TO/);
    expect(check({ window: '2025-01-01:' })).toThrow('--window need(s) --bench');
    expect(check({ bench: 'livecodebench', 'code-judge': 'livecodebench' })).not.toThrow();
    expect(check({ bench: 'livecodebench', 'code-judge': 'lcb' })).toThrow(
      "--code-judge: expected faithful or livecodebench, got 'lcb'",
    );
    expect(check({ 'code-judge': 'faithful' })).toThrow('--code-judge need(s) --bench');
  });
});
