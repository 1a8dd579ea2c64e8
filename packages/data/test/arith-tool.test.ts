import { spawnSync } from 'node:child_process';
import { createSandbox, type LocalSandbox, markdownFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ArithProblem,
  arithMix,
  arithRlPrompt,
  arithSplitOf,
  arithStrategyOf,
  ByteTokenizer,
  generateArithProblems,
  generateArithTraces,
  serializeTrajectory,
  validateTrajectory,
} from '../src/index';

const PYTHON = '/usr/bin/python3';

function python(code: string) {
  const run = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

function powMod(a: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  for (let i = 0n; i < e; i++) r = (r * a) % m;
  return r;
}

/** Each question shape with its answer recomputed from the text, independently of the generator. */
const RECOMPUTE: Array<[RegExp, (n: bigint[], text: string[]) => bigint]> = [
  [/^(\d+)\^(\d+) mod (\d+)=\?$/, ([a, e, m]) => powMod(a as bigint, e as bigint, m as bigint)],
  [/^(\d+)\*(\d+) mod (\d+)=\?$/, ([a, b, m]) => ((a as bigint) * (b as bigint)) % (m as bigint)],
  [
    /^1(?:\^(\d))?\+2(?:\^\d)?\+\.\.\.\+(\d+)(?:\^\d)?=\?$/,
    (_, [p, n]) => {
      let sum = 0n;
      for (let k = 1n; k <= BigInt(n as string); k++) sum += k ** BigInt(p ?? '1');
      return sum;
    },
  ],
  [
    /^n=(\d+)\*(\d+)\. digit sum of n=\?$/,
    ([a, b]) => [...((a as bigint) * (b as bigint)).toString()].reduce((sum, d) => sum + BigInt(d), 0n),
  ],
  [
    /^r=(\d+)\^(\d+) mod (\d+)\. \(r\+(\d)\)\*\(r\+(\d)\)=\?$/,
    ([a, e, m, c, d]) => {
      const r = powMod(a as bigint, e as bigint, m as bigint);
      return (r + (c as bigint)) * (r + (d as bigint));
    },
  ],
  [
    /^r=(\d+)\^(\d+) mod (\d+)\. r\^(\d+) mod (\d+)=\?$/,
    ([a, e, m, f, p]) => powMod(powMod(a as bigint, e as bigint, m as bigint), f as bigint, p as bigint),
  ],
  [/^(\d+)\+(\d+)=\?$/, ([a, b]) => (a as bigint) + (b as bigint)],
  [/^(\d+)\*(\d+)=\?$/, ([a, b]) => (a as bigint) * (b as bigint)],
  [/^(\d+)\*(\d+)\+(\d+)=\?$/, ([a, b, c]) => (a as bigint) * (b as bigint) + (c as bigint)],
  [/^(\d+)\*(\d+)-(\d+)=\?$/, ([a, b, c]) => (a as bigint) * (b as bigint) - (c as bigint)],
  [/^(\d+) div (\d+)=\?$/, ([a, b]) => (a as bigint) / (b as bigint)],
  [/^(\d+) xor (\d+)=\?$/, ([a, b]) => (a as bigint) ^ (b as bigint)],
  [/^largest of (\d+), (\d+), (\d+)=\?$/, (n) => [...n].sort((a, b) => Number(a - b)).at(-1)!],
  [
    /^\((\d+)-(\d+)\) mod (\d+)=\?$/,
    ([a, b, m]) => ((((a as bigint) - (b as bigint)) % (m as bigint)) + (m as bigint)) % (m as bigint),
  ],
  [/^t=(\d+) xor (\d+)\. t\+(\d+)=\?$/, ([a, b, c]) => ((a as bigint) ^ (b as bigint)) + (c as bigint)],
  [/^q=(\d+) div (\d+)\. q mod (\d+)=\?$/, ([a, b, m]) => ((a as bigint) / (b as bigint)) % (m as bigint)],
];

function recompute(problem: ArithProblem): bigint {
  for (const [pattern, answer] of RECOMPUTE) {
    const match = problem.question.match(pattern);
    if (!match) continue;
    const groups = match.slice(1);
    return answer(
      groups.map((g) => (g === undefined ? 0n : BigInt(g))),
      groups as string[],
    );
  }
  throw new Error(`test cannot parse ${problem.question}`);
}

describe('generateArithProblems', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = generateArithProblems({ seed: 11, split: 'train', count: 200 });
    const b = generateArithProblems({ seed: 11, split: 'train', count: 200 });
    const c = generateArithProblems({ seed: 12, split: 'train', count: 200 });
    expect(b).toEqual(a);
    expect(c.map((p) => p.question)).not.toEqual(a.map((p) => p.question));
  });

  it('never shares a question between train and test, and gives >= 500 distinct held-out problems', () => {
    const train = generateArithProblems({ seed: 1, split: 'train', count: 5000 });
    const test = generateArithProblems({ seed: 1, split: 'test', count: 500 });
    const trainQuestions = new Set(train.map((p) => p.question));
    expect(trainQuestions.size).toBe(5000);
    expect(new Set(test.map((p) => p.question)).size).toBe(500);
    expect(test.filter((p) => trainQuestions.has(p.question))).toEqual([]);
    expect(test.every((p) => p.split === 'test' && arithSplitOf(p.question) === 'test')).toBe(true);
    expect(new Set(test.map((p) => p.level))).toEqual(new Set([1, 2, 3, 4]));
  });

  it('computes exact golds (checked by an independent recomputation)', () => {
    const problems = generateArithProblems({ seed: 3, split: 'train', count: 400 });
    for (const problem of problems)
      expect(problem.answer, problem.question).toBe(recompute(problem).toString());
    expect(new Set(problems.map((p) => p.kind)).size).toBe(9);
  });

  it('honours level weights and reports an exhausted space', () => {
    const hard = generateArithProblems({
      seed: 4,
      split: 'train',
      count: 100,
      levels: { 1: 0, 2: 0, 3: 0, 4: 1 },
    });
    expect(hard.every((p) => p.level === 4 && p.steps.length === 2)).toBe(true);
    expect(() =>
      generateArithProblems({ seed: 4, split: 'test', count: 5000, levels: { 1: 1, 2: 0, 3: 0, 4: 0 } }),
    ).toThrow(/only \d+ distinct test problems/);
    expect(() => generateArithProblems({ seed: 4, split: 'test', count: 1, levels: { 2: -1 } })).toThrow(
      'levels[2] must be a finite number >= 0',
    );
  });

  it('draws by kind weight for a mix, with short answers in the strategy mix', () => {
    const { kinds } = arithMix('strategy');
    const problems = generateArithProblems({ seed: 6, split: 'train', count: 2000, kinds: kinds! });
    const counts = new Map<string, number>();
    for (const problem of problems) counts.set(problem.kind, (counts.get(problem.kind) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(Object.keys(kinds!).sort());
    for (const [kind, weight] of Object.entries(kinds!)) {
      const share = counts.get(kind)! / problems.length;
      expect(Math.abs(share - weight), kind).toBeLessThan(0.04);
    }
    for (const problem of problems) {
      expect(problem.answer, problem.question).toBe(recompute(problem).toString());
      expect(problem.answer.length).toBeLessThanOrEqual(4);
    }
    expect(problems.filter((p) => p.kind === 'powmod-twice').every((p) => p.steps.length === 2)).toBe(true);
    // Level weights draw the classic kinds only, so classic problem sets are what they were.
    const classic = generateArithProblems({ seed: 3, split: 'train', count: 400 });
    expect(classic.some((p) => p.kind === 'powmod-twice')).toBe(false);
    expect(() =>
      generateArithProblems({ seed: 1, split: 'test', count: 1, kinds: { cube: 1 } as never }),
    ).toThrow('unknown kind "cube" in kinds');
    expect(() =>
      generateArithProblems({ seed: 1, split: 'test', count: 1, kinds: { add: 1 }, levels: { 1: 1 } }),
    ).toThrow('give levels or kinds, not both');
    expect(() => arithMix('hard')).toThrow(
      'unknown arith-tool mix "hard"; known: classic, strategy, pretrain',
    );
  });

  it("draws the pretrain mix's own kinds, none of which shares a wording with the strategy mix", () => {
    const pretrain = generateArithProblems({
      seed: 8,
      split: 'train',
      count: 1200,
      kinds: arithMix('pretrain').kinds!,
    });
    const strategy = generateArithProblems({
      seed: 8,
      split: 'train',
      count: 1200,
      kinds: arithMix('strategy').kinds!,
    });
    expect(new Set(pretrain.map((p) => p.kind))).toEqual(new Set(Object.keys(arithMix('pretrain').kinds!)));
    const shapeOf = (question: string) => RECOMPUTE.findIndex(([pattern]) => pattern.test(question));
    const strategyShapes = new Set(strategy.map((p) => shapeOf(p.question)));
    for (const problem of pretrain) {
      expect(problem.answer, problem.question).toBe(recompute(problem).toString());
      expect(strategyShapes.has(shapeOf(problem.question)), problem.question).toBe(false);
    }
    expect(arithMix('pretrain').strategies).toEqual({
      directShare: 0,
      mistakeShare: 0,
      giveUpShare: 0,
      failedAfterPrintShare: 0,
      stopEarlyShare: 0,
    });
  });

  it('turns a problem into a verl RL prompt', () => {
    const [problem] = generateArithProblems({ seed: 9, split: 'test', count: 1 }) as [ArithProblem];
    expect(arithRlPrompt(problem)).toEqual({
      dataSource: 'arith-tool',
      prompt: [{ role: 'user', content: `Q: ${problem.question}` }],
      ability: 'arithmetic',
      groundTruth: problem.answer,
      extraInfo: { id: problem.id, kind: problem.kind, level: problem.level, split: 'test' },
    });
  });
});

describe('generateArithTraces (real sandbox)', () => {
  let sandbox: LocalSandbox;
  const tokenizer = new ByteTokenizer();
  const problems = generateArithProblems({ seed: 21, split: 'train', count: 40 });

  beforeAll(async () => {
    sandbox = await createSandbox({ workers: 2 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('inserts observations whose outputs are what Python prints', async () => {
    const traces = await generateArithTraces(problems, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 1,
      directShare: 0.2,
      mistakeShare: 0.4,
    });
    expect(new Set(traces.map((t) => t.strategy))).toEqual(new Set(['direct', 'tool', 'recovered']));
    for (const [i, trace] of traces.entries()) {
      const problem = problems[i] as ArithProblem;
      validateTrajectory(trace, { vocabSize: tokenizer.vocabSize });
      expect(trace.groupId).toBe(problem.id);
      expect(trace.text.endsWith(`A: \\boxed{${problem.answer}}<|im_end|>`)).toBe(true);
      if (trace.strategy === 'direct') expect(trace.toolCalls).toEqual([]);
      if (trace.strategy === 'recovered') expect(trace.toolCalls[0]?.status).toBe('error');
      expect(trace.toolCalls.length).toBe(
        trace.strategy === 'direct' ? 0 : problem.steps.length + (trace.strategy === 'recovered' ? 1 : 0),
      );
      for (const call of trace.toolCalls) {
        const observed = tokenizer.decode(trace.responseIds.subarray(call.startToken, call.endToken));
        expect(observed).toBe(call.output);
        const body = observed.replace(/^\n/, '').replace(/\n```\n$/, '');
        const reference = python(call.code);
        if (call.status === 'ok') {
          expect(reference.status).toBe(0);
          expect(body).toBe(reference.stdout.trimEnd());
        } else {
          // The sandbox names the cell "<cell>", python -c names it "<string>", and the sandbox's traceback lacks
          // the interpreter's "Did you mean" hint: compare the exception line up to that hint.
          expect(reference.status).not.toBe(0);
          const exception = reference.stderr.trimEnd().split('\n').at(-1) as string;
          const observedException = body.split('\n').at(-1) as string;
          expect(observedException).toMatch(/^(NameError|SyntaxError|ValueError): ./);
          expect(exception.startsWith(observedException)).toBe(true);
        }
        expect(
          Array.from(trace.lossMask.subarray(call.startToken, call.endToken)).every((m) => m === 0),
        ).toBe(true);
      }
      // Everything outside observations is the policy's to learn, the stop string "```output" included.
      const policyTokens = trace.lossMask.reduce((sum, m) => sum + m, 0);
      const observationTokens = trace.toolCalls.reduce((sum, c) => sum + c.endToken - c.startToken, 0);
      expect(policyTokens + observationTokens).toBe(trace.responseIds.length);
    }
  });

  it('uses the printed result of the first call in the second', async () => {
    const twoStep = generateArithProblems({
      seed: 5,
      split: 'test',
      count: 6,
      levels: { 1: 0, 2: 0, 3: 0, 4: 1 },
    });
    const traces = await generateArithTraces(twoStep, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 2,
      directShare: 0,
      mistakeShare: 0,
    });
    for (const trace of traces) {
      const [first, second] = trace.toolCalls;
      const printed = first?.output.trim().replace(/\n```$/, '') as string;
      expect(second?.code).toContain(printed);
    }
  });

  it('carries the strategy mix mistakes: giving up after a failed call, stopping after the first of two calls', async () => {
    const mixed = generateArithProblems({
      seed: 8,
      split: 'train',
      count: 60,
      kinds: arithMix('strategy').kinds!,
    });
    const traces = await generateArithTraces(mixed, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 3,
      directShare: 0.2,
      mistakeShare: 0.5,
      giveUpShare: 0.5,
      failedAfterPrintShare: 0.5,
      stopEarlyShare: 0.6,
    });
    const seen = new Set(traces.map((t) => t.strategy));
    expect(seen).toEqual(new Set(['direct', 'tool', 'recovered', 'gave-up', 'stopped-early']));
    for (const [i, trace] of traces.entries()) {
      const problem = mixed[i]!;
      // The recorded calls say which strategy a trace followed, as they will for a rollout.
      expect(arithStrategyOf(trace.toolCalls, problem.steps.length)).toBe(trace.strategy);
      const answer = /A: \\boxed\{(\d+)\}<\|im_end\|>$/.exec(trace.text)?.[1];
      if (trace.strategy === 'gave-up') {
        expect(trace.toolCalls.map((call) => call.status)).toEqual(['error']);
        expect(answer).toBe(problem.answer);
      }
      if (trace.strategy === 'stopped-early') {
        expect(trace.toolCalls.map((call) => call.status)).toEqual(['ok']);
        const printed = trace.toolCalls[0]!.output.replace(/^\n/, '').replace(/\n```\n$/, '');
        expect(answer).toBe(printed);
      }
      expect(trace.correct).toBe(answer === problem.answer);
      expect(trace.reward).toBe(trace.correct ? 1 : 0);
    }
    expect(traces.some((t) => !t.correct)).toBe(true);
    // What C1 removes: the only call failed, yet it printed the result before failing and the answer is right.
    const failedButPrinted = traces.filter(
      (t, i) =>
        t.strategy === 'gave-up' &&
        t.correct &&
        t.toolCalls[0]!.output.replace(/^\n/, '').startsWith(`${mixed[i]!.answer}\nTraceback`),
    );
    const gaveUp = traces.filter((t) => t.strategy === 'gave-up');
    expect(failedButPrinted.length).toBeGreaterThan(0);
    expect(failedButPrinted.length).toBeLessThan(gaveUp.length);
    for (const trace of failedButPrinted)
      expect(trace.toolCalls[0]!.output).toMatch(/NameError: name 'result'/);
  });

  it('writes the pretrain mix as right tool demonstrations whose Python output is the gold', async () => {
    const mix = arithMix('pretrain');
    const pretrain = generateArithProblems({ seed: 9, split: 'train', count: 48, kinds: mix.kinds! });
    const traces = await generateArithTraces(pretrain, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 4,
      ...mix.strategies,
    });
    for (const [i, trace] of traces.entries()) {
      const problem = pretrain[i]!;
      expect(trace.strategy).toBe('tool');
      expect(trace.toolCalls.map((call) => call.status)).toEqual(problem.steps.map(() => 'ok'));
      const lastOutput = trace.toolCalls
        .at(-1)!
        .output.replace(/^\n/, '')
        .replace(/\n```\n$/, '');
      expect(lastOutput, problem.question).toBe(problem.answer);
      expect(trace.correct).toBe(true);
    }
  });

  it('gives identical traces for the same seed', async () => {
    const some = problems.slice(0, 10);
    const options = { sandbox, format: markdownFormat, tokenizer, seed: 7, mistakeShare: 0.5 };
    const a = await generateArithTraces(some, options);
    const b = await generateArithTraces(some, { ...options, concurrency: 1 });
    expect(b.map(serializeTrajectory)).toEqual(a.map(serializeTrajectory));
  });

  it('reports each written demonstration to onProgress, and writes the same traces with it', async () => {
    const some = problems.slice(0, 12);
    const options = {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 7,
      mistakeShare: 0.5,
      concurrency: 4,
    };
    const without = await generateArithTraces(some, options);
    const progress: Array<{ done: number; total: number }> = [];
    const withProgress = await generateArithTraces(some, { ...options, onProgress: (p) => progress.push(p) });
    expect(progress.map((p) => p.done)).toEqual(some.map((_, index) => index + 1));
    expect(new Set(progress.map((p) => p.total))).toEqual(new Set([some.length]));
    expect(withProgress.map(serializeTrajectory)).toEqual(without.map(serializeTrajectory));
  });
});
