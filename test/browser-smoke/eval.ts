import { compareAnswers, extractAnswer, grade, passAtK, scoreBenchmark } from '@taorl/eval';

/** Grades real answers with @taorl/eval's portable entry. */
export function run() {
  return {
    equivalent: grade('The area is therefore \\boxed{\\frac{1}{2}}.', '0.5'),
    different: grade('so the answer is \\boxed{3}', '4'),
    extracted: extractAnswer('First 2, then $x = \\sqrt{2}$. Final answer: \\boxed{\\sqrt{2}}'),
    interval: compareAnswers('[0, 1)', '\\left[0,1\\right)'),
    passAt2: passAtK(4, 1, 2),
    report: scoreBenchmark(
      [
        { problemId: 'a', correct: true },
        { problemId: 'a', correct: false },
        { problemId: 'b', correct: false },
        { problemId: 'b', correct: false },
      ],
      'smoke',
    ),
  };
}
