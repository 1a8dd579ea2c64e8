import {
  compareAnswers,
  compareStdout,
  extractAnswer,
  grade,
  gradeChoice,
  parsePyJson,
  passAtK,
  pyEqual,
  scoreBenchmark,
  shuffleChoices,
} from '@taorl/eval';

/** Grades real answers with @taorl/eval's portable entry. */
export function run() {
  return {
    equivalent: grade('The area is therefore \\boxed{\\frac{1}{2}}.', '0.5'),
    different: grade('so the answer is \\boxed{3}', '4'),
    extracted: extractAnswer('First 2, then $x = \\sqrt{2}$. Final answer: \\boxed{\\sqrt{2}}'),
    interval: compareAnswers('[0, 1)', '\\left[0,1\\right)'),
    passAt2: passAtK(4, 1, 2),
    choice: (() => {
      const problem = shuffleChoices({
        id: 'q',
        question: 'Q?',
        correct: 'yes',
        incorrect: ['no', 'maybe', 'never'],
      });
      return { problem, graded: gradeChoice('I conclude the answer is yes.', problem) };
    })(),
    stdout: compareStdout('1.50 2\n\n', '1.5 2'),
    bigInts: pyEqual(parsePyJson('[12345678901234567891]'), parsePyJson('[12345678901234567890]')),
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
