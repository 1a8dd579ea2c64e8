import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ByteTokenizer, ChatTemplate, type Tokenizer } from '@taorl/data';
import { createGraderPool, defaultBenchmarkDir, loadBenchmark } from '@taorl/eval/node';
import { sandboxToolEnvironment } from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBenchmarkNames } from '../src/bench-eval/benchmark-set.js';
import type { BenchmarkSampleRecord } from '../src/bench-eval/results-file.js';
import { type BenchmarkEvalOptions, evaluateBenchmarks, writeBenchmarkReports } from '../src/index.js';
import { TextPolicy } from './support/text-policy.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DATA = defaultBenchmarkDir;
const tokenizer = new ByteTokenizer();
const template = ChatTemplate.embedded();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

/** How the fake model answers one problem; `call` counts its first turns on that problem (0, 1, ...). */
type Plan = 'tool-correct' | 'tool-fails' | 'alternating' | 'direct-correct' | 'no-answer';

const python = (code: string) => `Let me compute.\n\`\`\`python\n${code}\n\`\`\`\n\`\`\`output`;

/**
 * Answers benchmark problems by a plan per problem, in the markdown tool format: its first turn writes code
 * (printing the gold, or failing) or answers directly; after a tool output it boxes the first line the code
 * printed. The tool calls run in the real sandbox; the grader is the real one.
 */
function answerKeyPolicy(
  tok: Tokenizer,
  plans: readonly { problem: string; gold: string; plan: Plan }[],
): TextPolicy {
  const calls = new Map<string, number>();
  return new TextPolicy(tok, (prefix) => {
    const entry = plans.find((item) => prefix.includes(item.problem));
    if (entry === undefined) throw new Error('answerKeyPolicy: prompt of an unknown problem');
    const response = prefix.split('<|im_start|>assistant\n').at(-1)!;
    if (response.includes('```output\n')) {
      const output = response.split('```output\n').at(-1)!;
      if (/Error/.test(output)) return 'The code failed; I guess \\boxed{0}.<|im_end|>';
      return `So the answer is \\boxed{${output.split('\n')[0]}}.<|im_end|>`;
    }
    const call = calls.get(entry.problem) ?? 0;
    calls.set(entry.problem, call + 1);
    const printGold = python(`print(${JSON.stringify(entry.gold)})`);
    switch (entry.plan) {
      case 'tool-correct':
        return printGold;
      case 'tool-fails':
        return python('print(1/0)');
      case 'alternating':
        return call % 2 === 0 ? printGold : python('print(-7)');
      case 'direct-correct':
        return `No code needed: \\boxed{${entry.gold}}.<|im_end|>`;
      case 'no-answer':
        return 'I do not know.<|im_end|>';
    }
  });
}

const aime = loadBenchmark('aime24', DATA).slice(0, 3);
const math = loadBenchmark('math500', DATA).slice(0, 3);
const plans: { problem: string; gold: string; plan: Plan }[] = [
  { problem: aime[0]!.problem, gold: aime[0]!.gold[0]!, plan: 'tool-correct' },
  { problem: aime[1]!.problem, gold: aime[1]!.gold[0]!, plan: 'tool-fails' },
  { problem: aime[2]!.problem, gold: aime[2]!.gold[0]!, plan: 'no-answer' },
  { problem: math[0]!.problem, gold: math[0]!.gold[0]!, plan: 'alternating' },
  { problem: math[1]!.problem, gold: math[1]!.gold[0]!, plan: 'direct-correct' },
  { problem: math[2]!.problem, gold: math[2]!.gold[0]!, plan: 'no-answer' },
];
const K = 4;
/** Samples of a run over both benchmarks with limit 3. */
const TOTAL = (aime.length + math.length) * K;

function setup(options: Partial<BenchmarkEvalOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'taorl-bench-eval-'));
  const warnings: string[] = [];
  const base: BenchmarkEvalOptions = {
    model: 'answer-key',
    benchmarks: ['aime24', 'math500'],
    k: K,
    dataDir: DATA,
    limit: 3,
    resultsPath: join(dir, 'results.jsonl'),
    toolFormat: 'markdown',
    maxTurns: 2,
    maxResponseTokens: 1024,
    seed: 5,
    batchSize: 64,
    quiet: true,
    warn: (message) => warnings.push(message),
    ...options,
  };
  const parts = {
    tokenizer,
    template,
    tools: sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 512 }),
  };
  return { dir, warnings, base, parts, policy: () => answerKeyPolicy(tokenizer, plans) };
}

/** The results file's lines after the header, parsed. */
const readRecords = (path: string): BenchmarkSampleRecord[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as BenchmarkSampleRecord);

const triple = (r: BenchmarkSampleRecord) => `${r.benchmark}|${r.problemId}|${r.sample}`;

/** C(n, r) as a float: enough for the small n here, and independent of @taorl/eval's running product. */
function choose(n: number, r: number): number {
  if (r < 0 || r > n) return 0;
  let result = 1;
  for (let i = 1; i <= r; i++) result = (result * (n - r + i)) / i;
  return result;
}

/** Avg@K and Pass@k of one benchmark recomputed from its records. */
function recompute(records: readonly BenchmarkSampleRecord[], benchmark: string, k: number) {
  const mine = records.filter((r) => r.benchmark === benchmark);
  const byProblem = new Map<string, BenchmarkSampleRecord[]>();
  for (const r of mine) byProblem.set(r.problemId, [...(byProblem.get(r.problemId) ?? []), r]);
  const groups = [...byProblem.values()];
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const correct = (g: BenchmarkSampleRecord[]) => g.filter((r) => r.correct).length;
  const passAt: Record<number, number> = {};
  for (const size of [1, 2, 4].filter((s) => s <= k))
    passAt[size] = mean(groups.map((g) => 1 - choose(g.length - correct(g), size) / choose(g.length, size)));
  const calls = mine.reduce((sum, r) => sum + r.toolCalls, 0);
  return {
    problems: groups.length,
    avgAtK: mean(groups.map((g) => correct(g) / g.length)),
    passAtK: passAt,
    lenAtK: mean(mine.map((r) => r.responseTokens)),
    toolCallsPerTrajectory: calls / mine.length,
    toolSuccessRate: calls === 0 ? null : 1 - mine.reduce((sum, r) => sum + r.toolFailures, 0) / calls,
  };
}

describe('benchmark evaluation with a scripted tool-using policy (real sandbox, real grader)', () => {
  it('takes K samples per problem, grades them, and reports the known metrics', async () => {
    const { base, parts, policy } = setup();
    const pool = createGraderPool({ size: 1 });
    let result: Awaited<ReturnType<typeof evaluateBenchmarks>>;
    try {
      result = await evaluateBenchmarks(policy(), parts, { ...base, grader: pool });
    } finally {
      await pool.close();
    }
    const records = readRecords(base.resultsPath);
    expect(records).toHaveLength(TOTAL);
    expect(result.generated).toBe(TOTAL);
    expect(new Set(records.map(triple)).size).toBe(TOTAL);
    const header = JSON.parse(readFileSync(base.resultsPath, 'utf8').split('\n')[0]!);
    expect(header.config).toMatchObject({ k: K, benchmarks: ['aime24', 'math500'], limit: 3 });

    // The first aime24 problem: code printed the gold, the answer boxed it.
    const solved = records.find((r) => r.benchmark === 'aime24' && r.problemId === aime[0]!.id)!;
    expect(solved).toMatchObject({
      correct: true,
      extracted: aime[0]!.gold[0],
      toolCalls: 1,
      toolFailures: 0,
    });
    expect(solved.codeLines).toBe(1);
    expect(solved.response).toContain(`\`\`\`output\n${aime[0]!.gold[0]}\n`);
    const failed = records.find((r) => r.benchmark === 'aime24' && r.problemId === aime[1]!.id)!;
    expect(failed).toMatchObject({ correct: false, extracted: '0', toolCalls: 1, toolFailures: 1 });
    expect(failed.response).toContain('ZeroDivisionError');
    const silent = records.find((r) => r.problemId === math[2]!.id)!;
    expect(silent).toMatchObject({ correct: false, extracted: null, gradeReason: 'no_answer' });

    const [aimeReport, mathReport] = result.reports;
    // aime24: solved, failed, never answered -> 1/3 everywhere.
    expect(aimeReport).toMatchObject({ benchmark: 'aime24', problems: 3, samplesPerProblem: K });
    expect(aimeReport!.avgAtK).toBeCloseTo(1 / 3, 12);
    expect(aimeReport!.passAtK[4]).toBeCloseTo(1 / 3, 12);
    expect(aimeReport!.majAtK).toBeCloseTo(1 / 3, 12);
    expect(aimeReport!.toolCallsPerTrajectory).toBeCloseTo(2 / 3, 12);
    expect(aimeReport!.toolSuccessRate).toBeCloseTo(0.5, 12);
    // math500: 2 of 4 (alternating), 4 of 4 (direct), 0 of 4.
    expect(mathReport!.avgAtK).toBeCloseTo(0.5, 12);
    expect(mathReport!.passAtK[1]).toBeCloseTo(0.5, 12);
    expect(mathReport!.passAtK[2]).toBeCloseTo((5 / 6 + 1 + 0) / 3, 12);
    expect(mathReport!.passAtK[4]).toBeCloseTo(2 / 3, 12);
    // The alternating problem's vote is a 2-2 tie, won by the class seen first (sample 0, correct).
    expect(mathReport!.majAtK).toBeCloseTo(2 / 3, 12);
    expect(mathReport!.toolCallsPerTrajectory).toBeCloseTo(1 / 3, 12);
    expect(mathReport!.toolSuccessRate).toBe(1);
    expect(mathReport!.codeLinesPerTrajectory).toBeCloseTo(1 / 3, 12);

    // The reports equal an independent recomputation from the file.
    for (const report of result.reports) {
      const expected = recompute(records, report.benchmark, K);
      expect(report.problems).toBe(expected.problems);
      expect(report.avgAtK).toBeCloseTo(expected.avgAtK, 12);
      for (const [size, value] of Object.entries(expected.passAtK))
        expect(report.passAtK[Number(size)]).toBeCloseTo(value, 12);
      expect(report.lenAtK).toBeCloseTo(expected.lenAtK, 9);
      expect(report.toolCallsPerTrajectory).toBeCloseTo(expected.toolCallsPerTrajectory, 12);
      expect(report.toolSuccessRate).toBeCloseTo(expected.toolSuccessRate!, 12);
    }
  });

  it('resumes after an interruption: every sample exactly once, the same set as an uninterrupted run', async () => {
    const whole = setup({ batchSize: 5 });
    await evaluateBenchmarks(whole.policy(), whole.parts, whole.base);

    const cut = setup({ batchSize: 5 });
    let batches = 0;
    const stopAfterTwo = () => {
      batches++;
      if (batches === 2) throw new Error('simulated kill');
    };
    await expect(
      evaluateBenchmarks(cut.policy(), cut.parts, { ...cut.base, onProgress: stopAfterTwo }),
    ).rejects.toThrow('simulated kill');
    expect(readRecords(cut.base.resultsPath)).toHaveLength(10);
    // A crash in the middle of the next write leaves half a line.
    appendFileSync(cut.base.resultsPath, '{"benchmark":"aime24","problemId":"6');

    const progress: number[] = [];
    const resumed = await evaluateBenchmarks(cut.policy(), cut.parts, {
      ...cut.base,
      onProgress: (p) => progress.push(p.done),
    });
    expect(cut.warnings.join('\n')).toMatch(/results\.jsonl:12: dropped an incomplete last line/);
    expect(resumed.generated).toBe(TOTAL - 10);
    expect(progress[0]).toBe(15);
    expect(progress.at(-1)).toBe(TOTAL);

    const resumedRecords = readRecords(cut.base.resultsPath);
    const wholeRecords = readRecords(whole.base.resultsPath);
    expect(resumedRecords).toHaveLength(TOTAL);
    expect(new Set(resumedRecords.map(triple)).size).toBe(TOTAL);
    expect(resumedRecords.map(triple).sort()).toEqual(wholeRecords.map(triple).sort());
    // Every problem but the alternating one is answered the same way in every sample: identical records.
    const deterministic = (records: BenchmarkSampleRecord[]) =>
      records.filter((r) => r.problemId !== math[0]!.id).sort((a, b) => triple(a).localeCompare(triple(b)));
    expect(deterministic(resumedRecords)).toEqual(deterministic(wholeRecords));

    // The reports come from the whole file, the resumed part included.
    for (const report of resumed.reports) {
      const expected = recompute(resumedRecords, report.benchmark, K);
      expect(report.avgAtK).toBeCloseTo(expected.avgAtK, 12);
      expect(report.passAtK[2]).toBeCloseTo(expected.passAtK[2]!, 12);
    }

    // A complete file resumes to no work at all.
    const again = await evaluateBenchmarks(cut.policy(), cut.parts, cut.base);
    expect(again.generated).toBe(0);
    expect(readRecords(cut.base.resultsPath)).toHaveLength(TOTAL);
  });

  it('rejects a malformed middle line, a bad field, or samples of another configuration, naming file:line', async () => {
    const { base, parts, policy } = setup({ benchmarks: ['aime24'], limit: 2, k: 2 });
    await evaluateBenchmarks(policy(), parts, base);
    const path = base.resultsPath;
    const good = readFileSync(path, 'utf8');
    const lines = good.split('\n');

    writeFileSync(path, [...lines.slice(0, 2), '{oops', ...lines.slice(3)].join('\n'));
    await expect(evaluateBenchmarks(policy(), parts, base)).rejects.toThrow(`${path}:3: malformed line`);

    const wrongField = { ...JSON.parse(lines[2]!), toolCalls: -1 };
    writeFileSync(path, [...lines.slice(0, 2), JSON.stringify(wrongField), ...lines.slice(3)].join('\n'));
    await expect(evaluateBenchmarks(policy(), parts, base)).rejects.toThrow(
      `${path}:3: field "toolCalls" must be a non-negative integer`,
    );

    writeFileSync(path, [...lines.slice(0, 3), lines[2]!, ...lines.slice(3)].join('\n'));
    await expect(evaluateBenchmarks(policy(), parts, base)).rejects.toThrow(
      `${path}:4: the same sample as line 3`,
    );

    writeFileSync(path, good);
    await expect(evaluateBenchmarks(policy(), parts, { ...base, k: 3 })).rejects.toThrow(
      `${path}:1: these results were written with another configuration (k: 2 in the file, 3 now)`,
    );
    await expect(
      evaluateBenchmarks(policy(), parts, { ...base, sampling: { temperature: 0.6 } }),
    ).rejects.toThrow(/sampling: \{"temperature":1,"topK":0,"topP":1\} in the file, \{"temperature":0.6,/);
    await expect(evaluateBenchmarks(policy(), parts, { ...base, limit: 1 })).rejects.toThrow(
      'limit: 2 in the file, 1 now',
    );
    expect(readFileSync(path, 'utf8')).toBe(good);

    const fresh = await evaluateBenchmarks(policy(), parts, { ...base, k: 3, fresh: true });
    expect(fresh.generated).toBe(2 * 3);
    expect(readRecords(path)).toHaveLength(6);
  });

  it('writes report.json, one markdown table and an HTML page that a browser renders', async () => {
    const { dir, base, parts, policy } = setup({ k: 2 });
    const result = await evaluateBenchmarks(policy(), parts, base);
    const paths = await writeBenchmarkReports(join(dir, 'eval'), result);

    const json = JSON.parse(readFileSync(paths.json, 'utf8'));
    expect(json.config).toEqual(result.config);
    expect(json.reports.map((r: { benchmark: string }) => r.benchmark)).toEqual(['aime24', 'math500']);
    expect(json.reports[1].avgAtK).toBe(result.reports[1]!.avgAtK);

    const markdown = readFileSync(paths.markdown, 'utf8');
    const tableLines = markdown.split('\n').filter((line) => line.startsWith('|'));
    expect(tableLines).toHaveLength(4);
    expect(tableLines[0]).toMatch(/^\| Benchmark \| Problems \| Avg@2 \| Pass@1 \| Pass@2 \| Maj@2 \|/);
    expect(tableLines[2]).toMatch(/^\| aime24 \| 3 \|/);
    expect(tableLines[3]).toMatch(/^\| math500 \| 3 \|/);

    const html = readFileSync(paths.html, 'utf8');
    expect(html).toContain('<svg');
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`file://${paths.html}`);
      const cells = await page.$$eval('table tbody tr', (rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
      );
      expect(cells.map((row) => row[0])).toEqual(['aime24', 'math500']);
      expect(cells[1]![2]).toBe((100 * result.reports[1]!.avgAtK).toFixed(1));
      const chart = await page.$eval('figure svg', (svg) => ({
        text: svg.textContent ?? '',
        lines: svg.querySelectorAll('path').length,
      }));
      expect(chart.text).toContain('Pass@k per benchmark');
      expect(chart.text).toContain('math500');
      expect(chart.lines).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('resolves benchmark lists and the default data folder', () => {
    expect(resolveBenchmarkNames('aime24, math500,aime24')).toEqual(['aime24', 'math500']);
    expect(resolveBenchmarkNames('all')).toContain('olympiadbench');
    expect(resolveBenchmarkNames('all')).not.toContain('gpqa_diamond');
    expect(resolveBenchmarkNames('gpqa_diamond,all,livecodebench')).toEqual([
      'gpqa_diamond',
      'aime24',
      'aime25',
      'amc23',
      'math500',
      'minerva_math',
      'olympiadbench',
      'livecodebench',
    ]);
    expect(() => resolveBenchmarkNames('aime24,aime2024')).toThrow(
      /unknown benchmark\(s\) aime2024; known: all \(the shipped math sets\), aime24, .*, gpqa_diamond, livecodebench/,
    );
    // The default data folder is the one @taorl/eval ships, inside the repository whatever the working directory.
    expect(DATA).toBe(join(repoRoot, 'packages', 'eval', 'data', 'benchmarks'));
    expect(existsSync(join(DATA, 'aime24', 'test.jsonl'))).toBe(true);
  });
});
