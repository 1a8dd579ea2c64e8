import type { CodeTask, TestVerdict } from '../src/index';

/**
 * Programs whose verdicts differ between the two judging modes, with the cases around them. `livecodebench` is the
 * verdict of LiveCodeBench's own runner, measured with lcb_runner/evaluation/compute_code_generation_metrics.py
 * (`evaluate_generations_by_problem`, unmodified, timeout 6 s, Python 3.11, numpy 2.4) at commit 28fef95 of
 * github.com/LiveCodeBench/LiveCodeBench: every program here is right, or wrong, by its statement; a failing
 * verdict on a right program is the runner's quirk. `faithful` is this package's contest-judge verdict, and
 * `failedTest` the first test that does not pass when it differs from 0.
 */
export interface ModeCase {
  readonly name: string;
  readonly program: string;
  readonly task: CodeTask;
  readonly faithful: TestVerdict;
  readonly livecodebench: TestVerdict;
  readonly livecodebenchFailedTest?: number;
}

const stdin = (name: string, tests: [string, string][]): CodeTask => ({
  id: name,
  kind: 'stdin',
  tests: tests.map(([input, output]) => ({ input, output })),
});

const functional = (name: string, method: string, tests: [string, string][]): CodeTask => ({
  id: name,
  kind: 'functional',
  method,
  tests: tests.map(([input, output]) => ({ input, output })),
});

const doubling = (name: string) => stdin(name, [['3\n', '6\n']]);
const twice = (name: string) =>
  functional(name, 'twice', [
    ['3', '6'],
    ['5', '10'],
  ]);

export const MODE_CASES: readonly ModeCase[] = [
  // Right programs the runner fails.
  {
    name: 'reads open(0)',
    program: 'data = open(0).read().split()\nprint(int(data[0]) * 2)',
    task: doubling('open-0'),
    faithful: 'passed',
    livecodebench: 'runtime_error',
  },
  {
    name: 'iterates sys.stdin',
    program: 'import sys\nfor line in sys.stdin:\n    print(int(line) * 2)',
    task: doubling('iterate-stdin'),
    faithful: 'passed',
    livecodebench: 'runtime_error',
  },
  {
    name: 'uses global on a name bound at module level',
    program: 'total = 0\ndef add(x):\n    global total\n    total += x\nadd(int(input()))\nprint(total * 2)',
    task: doubling('global'),
    faithful: 'passed',
    livecodebench: 'runtime_error',
  },
  {
    name: 'prints from an atexit handler',
    program: 'import atexit\nn = int(input())\natexit.register(lambda: print(n * 2))',
    task: doubling('atexit'),
    faithful: 'passed',
    livecodebench: 'wrong_answer',
  },
  {
    name: 'writes with os.write(1, ...)',
    program: "import os\nn = int(input())\nos.write(1, (str(n * 2) + '\\n').encode())",
    task: doubling('os-write'),
    faithful: 'passed',
    livecodebench: 'wrong_answer',
  },
  {
    name: 'writes to sys.stdout.buffer',
    program: "import sys\nn = int(input())\nsys.stdout.buffer.write((str(n * 2) + '\\n').encode())",
    task: doubling('stdout-buffer'),
    faithful: 'passed',
    livecodebench: 'runtime_error',
  },
  {
    name: 'ends with quit()',
    program: 'n = int(input())\nprint(n * 2)\nquit()',
    task: doubling('quit'),
    faithful: 'passed',
    livecodebench: 'runtime_error',
  },
  {
    name: 'keeps state in a mutable default argument',
    program:
      'class Solution:\n    def twice(self, x, seen=[]):\n        seen.append(x)\n        return len(seen) * x * 2',
    task: twice('mutable-default'),
    faithful: 'passed',
    livecodebench: 'wrong_answer',
    livecodebenchFailedTest: 1,
  },
  {
    name: 'keeps module state across calls',
    program:
      'count = 0\nclass Solution:\n    def twice(self, x):\n        global count\n        count += 1\n        return x * 2 if count == 1 else 0',
    task: twice('module-state'),
    faithful: 'passed',
    livecodebench: 'wrong_answer',
    livecodebenchFailedTest: 1,
  },
  // Right programs both pass (the faithful judge does as LiveCodeBench does).
  {
    name: 'converts an integer of 5,000 digits (over Python 3.11 default 4,300)',
    program: 'n = int(input())\nprint(n + 1)',
    task: stdin('digits-5000', [[`${'9'.repeat(5000)}\n`, `1${'0'.repeat(5000)}\n`]]),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: 'returns a numpy scalar',
    program: 'import numpy as np\nclass Solution:\n    def twice(self, x):\n        return np.int64(x) * 2',
    task: twice('numpy-scalar'),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: 'ends with exit()',
    program: 'n = int(input())\nprint(n * 2)\nexit()',
    task: doubling('exit'),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: 'aliases input to sys.stdin.readline',
    program: 'import sys\ninput = sys.stdin.readline\nn = int(input())\nprint(n * 2)',
    task: stdin('readline', [
      ['3\n', '6\n'],
      ['4\n', '8\n'],
    ]),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: 'reads sys.stdin.buffer',
    program: 'import sys\nn = int(sys.stdin.buffer.readline())\nprint(n * 2)',
    task: doubling('stdin-buffer'),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: "runs main under if __name__ == '__main__'",
    program: "def main():\n    print(int(input()) * 2)\n\nif __name__ == '__main__':\n    main()",
    task: doubling('main-guard'),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  {
    name: 'returns a tuple for a list',
    program: 'class Solution:\n    def pair(self, x):\n        return (x, x)',
    task: functional('tuple', 'pair', [['3', '[3, 3]']]),
    faithful: 'passed',
    livecodebench: 'passed',
  },
  // Wrong programs both fail.
  {
    name: 'converts an integer of 60,000 digits (over the 50,000 limit)',
    program: 'n = int(input())\nprint(n + 1)',
    task: stdin('digits-60000', [[`${'9'.repeat(60000)}\n`, `1${'0'.repeat(60000)}\n`]]),
    faithful: 'runtime_error',
    livecodebench: 'runtime_error',
  },
  {
    name: 'returns a numpy array',
    program: 'import numpy as np\nclass Solution:\n    def pair(self, x):\n        return np.array([x, x])',
    task: functional('numpy-array', 'pair', [['3', '[3, 3]']]),
    faithful: 'wrong_answer',
    livecodebench: 'runtime_error',
  },
  {
    name: 'prints a wrong answer',
    program: 'print(int(input()) * 3)',
    task: doubling('wrong'),
    faithful: 'wrong_answer',
    livecodebench: 'wrong_answer',
  },
  {
    name: 'returns a wrong answer',
    program: 'class Solution:\n    def twice(self, x):\n        return x * 3',
    task: twice('wrong-functional'),
    faithful: 'wrong_answer',
    livecodebench: 'wrong_answer',
  },
  {
    name: 'does not compile',
    program: 'print(int(input()) * 2',
    task: doubling('syntax'),
    faithful: 'runtime_error',
    livecodebench: 'runtime_error',
  },
];
