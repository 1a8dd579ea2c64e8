import { describe, expect, it } from 'vitest';
import { countToolUse, type ScoredSample, scoreBenchmark, toolUseOf } from '../src/index';

/** Independent pass@k: the probability that a random k-subset (enumerated) holds a correct sample. */
function passAtKByEnumeration(flags: readonly boolean[], k: number): number {
  let subsets = 0;
  let passing = 0;
  const visit = (start: number, chosen: number[]): void => {
    if (chosen.length === k) {
      subsets += 1;
      if (chosen.some((index) => flags[index])) passing += 1;
      return;
    }
    for (let index = start; index < flags.length; index++) visit(index + 1, [...chosen, index]);
  };
  visit(0, []);
  return passing / subsets;
}

const answers: Record<string, [string, boolean][]> = {
  // Two equivalent spellings of the correct answer outvote a wrong one.
  a: [
    ['\\frac12', true],
    ['0.5', true],
    ['3', false],
    ['1/2', true],
  ],
  // The wrong answer wins the vote.
  b: [
    ['7', false],
    ['7.0', false],
    ['8', true],
    ['9', false],
  ],
  c: [
    ['x+1', true],
    ['1+x', true],
    ['x+1', true],
    ['x+1', true],
  ],
};

const samples: ScoredSample[] = Object.entries(answers).flatMap(([problemId, list]) =>
  list.map(([extracted, correct], index) => ({
    problemId,
    correct,
    extracted,
    responseTokens: 100 * (index + 1),
    toolCalls: index,
    toolFailures: index === 3 ? 1 : 0,
    codeLines: 2 * index,
  })),
);

describe('scoreBenchmark', () => {
  const report = scoreBenchmark(samples, 'toy');

  it('computes Avg@K, Pass@k and Maj@K against independent recomputations', () => {
    expect(report.problems).toBe(3);
    expect(report.samplesPerProblem).toBe(4);
    expect(report.avgAtK).toBeCloseTo((3 / 4 + 1 / 4 + 1) / 3, 12);
    for (const k of [1, 2, 4]) {
      const expected =
        Object.values(answers).reduce(
          (sum, list) =>
            sum +
            passAtKByEnumeration(
              list.map(([, ok]) => ok),
              k,
            ),
          0,
        ) / 3;
      expect(report.passAtK[k]).toBeCloseTo(expected, 12);
    }
    expect(Object.keys(report.passAtK)).toEqual(['1', '2', '4']);
    expect(report.majAtK).toBeCloseTo(2 / 3, 12);
  });

  it('averages lengths and tool use per trajectory', () => {
    expect(report.lenAtK).toBeCloseTo(250, 12);
    expect(report.toolCallsPerTrajectory).toBeCloseTo(1.5, 12);
    expect(report.codeLinesPerTrajectory).toBeCloseTo(3, 12);
    expect(report.toolSuccessRate).toBeCloseTo(1 - 3 / 18, 12);
  });

  it('renders a markdown table and leaves unknown metrics blank', () => {
    expect(report.markdown.split('\n')[0]).toBe(
      '| Benchmark | Problems | Avg@4 | Pass@1 | Pass@2 | Pass@4 | Maj@4 | Len@4 | Tool calls | Code lines | Tool success % |',
    );
    expect(report.markdown.split('\n')[2]).toBe(
      '| toy | 3 | 66.7 | 66.7 | 83.3 | 100.0 | 66.7 | 250.0 | 1.5 | 3.0 | 83.3 |',
    );
    const bare = scoreBenchmark([{ problemId: 'p', correct: true }]);
    expect([bare.majAtK, bare.lenAtK, bare.toolSuccessRate]).toEqual([null, null, null]);
    expect(() => scoreBenchmark([])).toThrow(/no samples/);
  });
});

describe('toolUseOf', () => {
  it('counts the recorded calls whatever format wrote them: status not ok is a failure, non-blank code lines', () => {
    // A format no text pattern knows: only the recorded calls tell that two calls ran and one failed.
    const response = '<<run>>\nx = 1\n\nprint(x)\n<</run>>\n[1]\n<<run>>\nprint(1/0)\n<</run>>\n[error]';
    expect(countToolUse(response).toolCalls).toBe(0);
    const calls = [
      { status: 'ok', code: 'x = 1\n\nprint(x)\n' },
      { status: 'timeout', code: '  \nwhile True: pass' },
      { status: 'ok', code: '' },
    ];
    expect(toolUseOf(calls)).toEqual({ toolCalls: 3, toolFailures: 1, codeLines: 3 });
    expect(toolUseOf([])).toEqual({ toolCalls: 0, toolFailures: 0, codeLines: 0 });
  });
});

describe('countToolUse', () => {
  it('counts python blocks, their lines, and failed outputs', () => {
    const response = [
      '```python\nx = 1\n\nprint(x)\n```',
      '```output\n1\n```',
      '```python\nprint(1/0)\n```',
      '```output\nTraceback (most recent call last):\nZeroDivisionError: division by zero\n```',
    ].join('\n');
    expect(countToolUse(response)).toEqual({ toolCalls: 2, toolFailures: 1, codeLines: 3 });
  });

  it('reads the hermes and tags formats and untagged markdown blocks', () => {
    const hermes = [
      '<tool_call>{"name": "code_interpreter", "arguments": {"code": "a = 1\\nprint(a)"}}</tool_call>',
      '<tool_response>\n1\n</tool_response>',
      '<tool_call>{"name": "code_interpreter", "arguments": "{\\"code\\": \\"x\\"}"}</tool_call>',
      '<tool_response>\nNameError: x\n</tool_response>',
    ].join('\n');
    expect(countToolUse(hermes)).toEqual({ toolCalls: 2, toolFailures: 1, codeLines: 3 });
    const tags = '<code>print(1)</code>\n<interpreter>\nTimeoutError: timed out\n</interpreter>';
    expect(countToolUse(tags)).toEqual({ toolCalls: 1, toolFailures: 1, codeLines: 1 });
    expect(countToolUse('```\nprint(2)\n```\n```output\n2\n```\n```text\nnot code\n```')).toEqual({
      toolCalls: 1,
      toolFailures: 0,
      codeLines: 1,
    });
  });
});
