// Time to a verdict on pathological inputs, in-thread and through the pool's hard limit.
// Run from the repository root: pnpm bench packages/eval/bench/bounds.ts
import { compareAnswers, grade } from '@taorl/eval';
import { createGraderPool } from '@taorl/eval/node';

const cases: [string, () => string][] = [
  ['10^{10^{10}} vs itself + 1', () => compareAnswers('10^{10^{10}}', '10^{10^{10}}+1').reason],
  ['9^{9^{9}}', () => compareAnswers('9^{9^{9}}', '9^{9^{9}}+0').reason],
  ['e^{e^{e^{e^{10}}}}', () => compareAnswers('e^{e^{e^{e^{10}}}}', '1').reason],
  ['100000!', () => compareAnswers('100000!', '5').reason],
  ['1500 nested parentheses', () => compareAnswers(`${'('.repeat(1500)}1${')'.repeat(1500)}`, '1').reason],
  ['sum of 999 ones vs 1000', () => compareAnswers(`${'1+'.repeat(999)}1`, '1000').reason],
  [
    '150-symbol sum, zero time budget',
    () => {
      const long = Array.from({ length: 150 }, (_, index) => `x_{${index}}`).join('+');
      return compareAnswers(long, `${long}+0`, { limits: { timeBudgetMs: 0 } }).reason;
    },
  ],
  ['1 MB response, box at the end', () => grade(`${'a'.repeat(1_000_000)}\\boxed{3}`, '3').reason],
  [
    '1 MB of spaces between two boxes',
    () => grade(`\\boxed{1}${' '.repeat(1_000_000)}x\\boxed{2}`, '2').reason,
  ],
  ['1 MB of adjacent boxes', () => grade('\\boxed{1}'.repeat(111_112), '1').reason],
  ['1 MB of unclosed boxes', () => grade('\\boxed{'.repeat(142_858), '1').reason],
  ['1 MB of nested boxes', () => grade('\\fbox{\\boxed{2}'.repeat(66_667), '2').reason],
  ['a truncated box: \\boxed{12', () => grade('\\boxed{12', '12').reason],
  ['1 MB final-answer line', () => grade(`The final answer is ${'x'.repeat(1_000_000)}`, '2').reason],
];

console.log('| input | reason | ms |');
console.log('| --- | --- | --- |');
for (const [name, run] of cases) {
  const start = performance.now();
  const reason = run();
  console.log(`| ${name} | ${reason} | ${(performance.now() - start).toFixed(1)} |`);
}

// In-thread guards lifted: only the pool's watchdog can stop this one.
const items = Array.from({ length: 20_000 }, (_, index) => `x_{${index}}`);
const pool = createGraderPool({ size: 1 });
await pool.gradeMany([{ response: '\\boxed{1}', gold: '1' }]);
const start = performance.now();
const [result] = await pool.gradeMany([
  {
    response: `\\boxed{${items.join(',')}}`,
    gold: [...items].reverse().join(',').replace('x_{19999}', 'y'),
    options: { limits: { maxAnswerLength: 1_000_000, timeBudgetMs: 600_000 } },
  },
]);
console.log(
  `| 20,000-item lists, guards lifted, pool (default taskTimeoutMs 1500) | ${result!.reason} | ${(performance.now() - start).toFixed(0)} |`,
);
await pool.close();
