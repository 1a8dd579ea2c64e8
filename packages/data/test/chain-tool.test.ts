import { createSandbox, type LocalSandbox, markdownFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ByteTokenizer,
  type ChainProblem,
  type ChainTrace,
  generateChainProblems,
  generateChainTraces,
  serializeTrajectory,
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
    [
      /^while x is odd, x=x\*(\d+) mod (\d+)$/,
      (m) => {
        let y = x;
        for (let guard = 0; y % 2 === 1; guard++) {
          if (guard > 10) throw new Error('the loop does not end');
          y = (y * Number(m[1])) % Number(m[2]);
        }
        return y;
      },
    ],
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
      // Only the lucky ones: the question's last number is otherwise a modulus, which a value is below.
      expect(guessed).toBe(share(problems, (p) => p.lucky));
      if (lucky === 0) expect(guessed).toBe(0);
      else expect(Math.abs(guessed - lucky)).toBeLessThan(0.03);
    }
  });

  it('loopShare sets the share of problems whose calls depend on the parity of what the tool printed', () => {
    for (const loops of [0, 0.5, 1]) {
      const problems = generateChainProblems({ seed: 2, split: 'train', count: 3000, loopShare: loops });
      const looped = problems.filter((p) => p.loop !== null);
      expect(looped.length / problems.length).toBeCloseTo(loops, 1);
      if (loops === 0) continue;
      // About half the values entering the loop are odd: a second decision after about half of those, ...
      const entered = share(looped, (p) => p.loop!.iterations > 0);
      expect(entered).toBeGreaterThan(0.4);
      expect(entered).toBeLessThan(0.6);
      expect(new Set(looped.map((p) => p.loop!.iterations))).toEqual(new Set([0, 1, 2, 3]));
      // ... so chains of one length need different numbers of calls, set by the outputs.
      const before = (p: ChainProblem) => p.loop!.at;
      expect(new Set(looped.filter((p) => before(p) === 3).map((p) => p.steps.length))).toEqual(
        new Set([3, 4, 5, 6]),
      );
    }
  });

  it('needs 3-6 calls at the defaults, every count drawn, and honours minSteps / maxSteps', () => {
    const problems = generateChainProblems({ seed: 6, split: 'train', count: 2000 });
    const calls = problems.map((p) => p.steps.length);
    expect(new Set(calls)).toEqual(new Set([3, 4, 5, 6]));
    const mean = calls.reduce((a, b) => a + b, 0) / calls.length;
    expect(mean).toBeGreaterThan(3.7);
    expect(mean).toBeLessThan(4.2);
    const short = generateChainProblems({
      seed: 6,
      split: 'train',
      count: 200,
      minSteps: 2,
      maxSteps: 2,
      maxCalls: 3,
    });
    expect(new Set(short.map((p) => p.steps.length))).toEqual(new Set([2, 3]));
    expect(() =>
      generateChainProblems({ seed: 1, split: 'train', count: 1, minSteps: 4, maxSteps: 3 }),
    ).toThrow(
      'generateChainProblems: minSteps and maxSteps must be integers with 2 <= minSteps <= maxSteps, got 4 and 3',
    );
    expect(() => generateChainProblems({ seed: 1, split: 'train', count: 1, luckyShare: 1.5 })).toThrow(
      'generateChainProblems: luckyShare must be in [0, 1], got 1.5',
    );
    expect(() => generateChainProblems({ seed: 1, split: 'train', count: 1, maxCalls: 3 })).toThrow(
      'generateChainProblems: maxCalls must be an integer >= maxSteps (4), got 3',
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
    const wasted = traces.filter((t) => t.strategy === 'recovered' || t.strategy === 'redundant');
    expect(wasted.length).toBeGreaterThan(20);
    for (const trace of wasted) {
      const failed = trace.toolCalls.filter((c) => c.status !== 'ok').length;
      const codes = calls(trace);
      if (trace.strategy === 'recovered') {
        expect(failed).toBe(1);
        expect(new Set(codes).size).toBe(codes.length);
      } else {
        expect(failed).toBe(0);
        expect(new Set(codes).size).toBe(codes.length - 1);
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

  it('misreads a parity in the loop: a call too many or too few, and wrong unless lucky', () => {
    const wrong = traces.filter((t) => t.strategy === 'wrong-branch');
    expect(wrong.length).toBeGreaterThan(10);
    for (const trace of wrong) {
      const problem = problems.find((p) => p.id === trace.groupId)!;
      expect(problem.loop).not.toBeNull();
      if (problem.lucky) expect(trace.correct).toBe(true);
    }
    const unlucky = wrong.filter((t) => !problems.find((p) => p.id === t.groupId)!.lucky);
    expect(share(unlucky as never, (t) => (t as unknown as ChainTrace).correct)).toBeLessThan(0.1);
    // At the loop's decisions the demonstrations disagree with the parity about 30% of the time (misreadShare).
    let decisions = 0;
    let misread = 0;
    for (const trace of traces.filter((t) => t.strategy === 'tool' || t.strategy === 'wrong-branch')) {
      const problem = problems.find((p) => p.id === trace.groupId)!;
      const outputs = trace.toolCalls.map((call) => Number(call.output.trim().split('\n')[0]));
      const loopCalls = calls(trace).length - (problem.steps.length - problem.loop!.iterations);
      // Decisions: after the call before the loop and after each loop call that was followed by another decision.
      for (let k = 0; k <= loopCalls; k++) {
        const value = outputs[problem.loop!.at - 1 + k]!;
        const called = k < loopCalls;
        decisions++;
        if ((value % 2 === 1) !== called) misread++;
        if (!called) break;
      }
    }
    expect(misread / decisions).toBeGreaterThan(0.2);
    expect(misread / decisions).toBeLessThan(0.4);
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
  it('reports each written demonstration to onProgress, and writes the same traces with it', async () => {
    const some = problems.slice(0, 24);
    const progress: Array<{ done: number; total: number }> = [];
    const withProgress = await generateChainTraces(some, {
      sandbox,
      format: markdownFormat,
      tokenizer,
      seed: 12,
      maxObservationChars: 128,
      onProgress: (p) => progress.push(p),
    });
    expect(progress.map((p) => p.done)).toEqual(some.map((_, index) => index + 1));
    expect(new Set(progress.map((p) => p.total))).toEqual(new Set([some.length]));
    expect(withProgress.map(serializeTrajectory)).toEqual(traces.slice(0, 24).map(serializeTrajectory));
  }, 60_000);
});
