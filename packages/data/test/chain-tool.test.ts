import { createSandbox, type LocalSandbox, markdownFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ByteTokenizer,
  type ChainProblem,
  type ChainTrace,
  generateChainProblems,
  generateChainTraces,
  validateTrajectory,
} from '../src/index';

/** The question read as a program, step by step, independently of the generator: its answer. */
function recompute(question: string): number {
  const sentences = question.split('. ').map((s) => s.replace(/\.$/, ''));
  expect(sentences.at(-1)).toBe('x=?');
  let x = Number.NaN;
  const pow = (a: number, e: number, m: number) => {
    let r = 1;
    for (let i = 0; i < e; i++) r = (r * a) % m;
    return r;
  };
  const value = (token: string | undefined) => (token === 'x' ? x : Number(token));
  const rules: Array<[RegExp, (m: RegExpMatchArray) => number]> = [
    [/^x=(\d+|x)\^(\d+) mod (\d+)$/, (m) => pow(value(m[1]), Number(m[2]), Number(m[3]))],
    [/^x=(\d+|x)\*(\d+) mod (\d+)$/, (m) => (value(m[1]) * Number(m[2])) % Number(m[3])],
    [/^if x is odd, x=x\*(\d+) mod (\d+)$/, (m) => (x % 2 === 1 ? (x * Number(m[1])) % Number(m[2]) : x)],
    [/^x=max\(x,(\d+)\)$/, (m) => Math.max(x, Number(m[1]))],
  ];
  for (const sentence of sentences.slice(0, -1)) {
    const rule = rules.find(([pattern]) => pattern.test(sentence));
    if (rule === undefined) throw new Error(`test cannot parse "${sentence}" of ${question}`);
    x = rule[1](sentence.match(rule[0])!);
  }
  return x;
}

/** A guess from the question's surface alone: its last number. */
const surfaceGuess = (problem: ChainProblem) => problem.question.match(/\d+/g)!.at(-1);

const share = (problems: readonly ChainProblem[], test: (problem: ChainProblem) => boolean) =>
  problems.filter(test).length / problems.length;

describe('generateChainProblems', () => {
  it('is deterministic per seed, differs across seeds, and keeps train and test apart', () => {
    const a = generateChainProblems({ seed: 3, split: 'train', count: 50 });
    expect(generateChainProblems({ seed: 3, split: 'train', count: 50 })).toEqual(a);
    expect(generateChainProblems({ seed: 4, split: 'train', count: 50 })).not.toEqual(a);
    const test = generateChainProblems({ seed: 3, split: 'test', count: 500 });
    const train = new Set(
      generateChainProblems({ seed: 9, split: 'train', count: 2000 }).map((p) => p.question),
    );
    expect(test.filter((p) => train.has(p.question))).toEqual([]);
    expect(new Set(test.map((p) => p.id)).size).toBe(500);
  });

  it('states in the question exactly the chain whose gold it gives', () => {
    for (const problem of generateChainProblems({ seed: 5, split: 'train', count: 400, luckyShare: 0.3 })) {
      expect(String(recompute(problem.question)), problem.question).toBe(problem.answer);
      expect(problem.level).toBe(problem.steps.length);
    }
  });

  it('luckyShare sets the share of answers readable from the surface, 0 at 0', () => {
    for (const lucky of [0, 0.15, 0.3]) {
      const problems = generateChainProblems({ seed: 1, split: 'train', count: 3000, luckyShare: lucky });
      const guessed = share(problems, (p) => surfaceGuess(p) === p.answer);
      expect(share(problems, (p) => p.lucky)).toBeCloseTo(lucky, 1);
      // Only the lucky ones: the question's last number is then a modulus, which a value is below, or which an
      // even value after a check that did not fire cannot equal (the moduli are odd primes).
      expect(guessed).toBe(share(problems, (p) => p.lucky));
      if (lucky === 0) expect(guessed).toBe(0);
      else expect(Math.abs(guessed - lucky)).toBeLessThan(0.03);
    }
  });

  it('checkShare sets the share of problems whose last call depends on an output (about half fire)', () => {
    for (const checks of [0, 0.5, 1]) {
      const problems = generateChainProblems({ seed: 2, split: 'train', count: 3000, checkShare: checks });
      const checked = problems.filter((p) => p.check !== 'none');
      expect(checked.length / problems.length).toBeCloseTo(checks, 1);
      if (checks === 0) continue;
      const fired = share(checked, (p) => p.check === 'fired');
      expect(fired).toBeGreaterThan(0.4);
      expect(fired).toBeLessThan(0.6);
      // Two problems of one chain length with a check need a different number of calls, set by the output.
      const plain = (p: ChainProblem) => p.steps.length - (p.check === 'fired' ? 1 : 0);
      expect(new Set(checked.filter((p) => plain(p) === 4).map((p) => p.steps.length))).toEqual(
        new Set([4, 5]),
      );
    }
  });

  it('needs 3-6 calls at the defaults, every count drawn, and honours minSteps / maxSteps', () => {
    const problems = generateChainProblems({ seed: 6, split: 'train', count: 2000 });
    const calls = problems.map((p) => p.steps.length);
    expect(new Set(calls)).toEqual(new Set([3, 4, 5, 6]));
    const mean = calls.reduce((a, b) => a + b, 0) / calls.length;
    expect(mean).toBeGreaterThan(4);
    expect(mean).toBeLessThan(4.5);
    const short = generateChainProblems({ seed: 6, split: 'train', count: 200, minSteps: 2, maxSteps: 2 });
    expect(Math.max(...short.map((p) => p.steps.length))).toBe(3);
    expect(() =>
      generateChainProblems({ seed: 1, split: 'train', count: 1, minSteps: 4, maxSteps: 3 }),
    ).toThrow(
      'generateChainProblems: minSteps and maxSteps must be integers with 2 <= minSteps <= maxSteps, got 4 and 3',
    );
    expect(() => generateChainProblems({ seed: 1, split: 'train', count: 1, luckyShare: 1.5 })).toThrow(
      'generateChainProblems: luckyShare must be in [0, 1], got 1.5',
    );
  });
});

describe('generateChainTraces (real sandbox)', () => {
  let sandbox: LocalSandbox;
  const tokenizer = new ByteTokenizer();
  let problems: ChainProblem[];
  let traces: ChainTrace[];

  beforeAll(async () => {
    sandbox = await createSandbox({ workers: 2 });
    problems = generateChainProblems({ seed: 11, split: 'train', count: 160, luckyShare: 0.3 });
    traces = await generateChainTraces(problems, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 12,
      maxObservationChars: 128,
    });
  }, 120_000);

  afterAll(async () => {
    await sandbox.close();
  });

  const calls = (trace: ChainTrace) =>
    trace.toolCalls.filter((call) => call.status === 'ok').map((c) => c.code);

  it('writes valid trajectories that fit the 512-token context, with every strategy', () => {
    for (const trace of traces) {
      validateTrajectory(trace);
      expect(trace.promptIds.length + trace.responseIds.length).toBeLessThanOrEqual(512);
    }
    expect(new Set(traces.map((t) => t.strategy))).toEqual(
      new Set(['direct', 'gave-up', 'recovered', 'redundant', 'wrong-branch', 'tool']),
    );
  });

  it('runs each reference call in Python and carries its printed value into the next call', () => {
    for (const [index, trace] of traces.entries()) {
      const problem = problems[index]!;
      if (trace.strategy !== 'tool') continue;
      const codes = calls(trace);
      expect(codes.length).toBe(problem.steps.length);
      const outputs = trace.toolCalls.map((call) => call.output.trim().split('\n')[0]);
      // Every call after the first starts from the number the call before printed.
      for (let i = 1; i < codes.length; i++)
        expect(codes[i]).toMatch(new RegExp(`[(,]${outputs[i - 1]}[,*)]`));
      expect(outputs.at(-1)).toBe(problem.answer);
      expect(trace.text.endsWith(`A: \\boxed{${problem.answer}}<|im_end|>`)).toBe(true);
      expect(trace.correct).toBe(true);
    }
  });

  it('wastes a call in recovered and redundant demonstrations', () => {
    for (const [index, trace] of traces.entries()) {
      const needed = problems[index]!.steps.length;
      if (trace.strategy === 'recovered') {
        expect(trace.toolCalls.map((c) => c.status).filter((s) => s === 'error')).toHaveLength(1);
        expect(trace.toolCalls).toHaveLength(needed + 1);
        expect(trace.correct).toBe(true);
      }
      if (trace.strategy === 'redundant') {
        const codes = calls(trace);
        expect(codes).toHaveLength(needed + 1);
        expect(new Set(codes).size).toBe(needed);
        expect(trace.correct).toBe(true);
      }
    }
  });

  it('gives up after a failed first call with the answer from the head: right with every call failed', () => {
    const gaveUp = traces.filter((t) => t.strategy === 'gave-up');
    expect(gaveUp.length).toBeGreaterThan(5);
    for (const trace of gaveUp) {
      expect(trace.toolCalls.map((c) => c.status)).toEqual(['error']);
      const problem = problems.find((p) => p.id === trace.groupId)!;
      // On a lucky problem that answer is on the question's surface: what a policy can reproduce without code.
      if (problem.lucky) expect(surfaceGuess(problem)).toBe(problem.answer);
    }
  });

  it('takes the wrong branch at the check: one call too many or too few, wrong unless lucky', () => {
    const wrong = traces.filter((t) => t.strategy === 'wrong-branch');
    expect(wrong.length).toBeGreaterThan(3);
    for (const trace of wrong) {
      const problem = problems.find((p) => p.id === trace.groupId)!;
      expect(calls(trace).length).toBe(problem.steps.length + (problem.check === 'fired' ? -1 : 1));
      expect(trace.correct).toBe(problem.lucky);
    }
  });

  it('gives identical traces for the same seed, and writes a wasted call that does not fit as a tool demonstration', async () => {
    const options = { sandbox, format: markdownFormat, tokenizer, seed: 12, maxObservationChars: 128 };
    const again = await generateChainTraces(problems.slice(0, 24), options);
    expect(again.map((t) => t.text)).toEqual(traces.slice(0, 24).map((t) => t.text));
    // Chains of at most 3 calls: their tool solutions fit in 300 tokens, a failed call does not always.
    const short = problems.filter((p) => p.steps.length <= 3);
    const roomy = await generateChainTraces(short, options);
    const tight = await generateChainTraces(short, { ...options, contextTokens: 300 });
    for (const [index, trace] of tight.entries()) {
      expect(trace.promptIds.length + trace.responseIds.length).toBeLessThanOrEqual(300);
      if (trace.strategy !== roomy[index]!.strategy) expect(trace.strategy).toBe('tool');
    }
    expect(tight.some((t, index) => t.strategy !== roomy[index]!.strategy)).toBe(true);
  }, 60_000);
});
