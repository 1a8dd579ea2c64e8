// Agreement on the two held-out suites of issue 37 (newer Math-Verify tests; other graders' remaining cases), per
// category, with the count of false "equal" (a wrong answer graded equal), for the whole suite and for its
// untouched part (every third case of a group, never looked at while the grader was changed). Disagreements of
// the untouched part are printed only with --show-untouched. Run from the repository root:
//   pnpm bench packages/eval/bench/held-out.ts [--show-untouched]
import {
  agreementOf,
  type CaseOutcome,
  differenceFor,
  isUntouched,
  runSuite,
  type Suite,
} from '../test/conformance/suite';
import { heldOutGraderSuite, heldOutMathVerifySuite } from '../test/conformance/suites';

const showUntouched = process.argv.includes('--show-untouched');
const cell = (text: string): string => {
  const short = text.length > 90 ? `...${text.slice(-87)}` : text;
  return `\`${short.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
};
const verdict = (equal: boolean): string => (equal ? 'equal' : 'not equal');
const score = (group: readonly CaseOutcome[]): string => {
  const { cases, agreed, falseEqual } = agreementOf(group);
  if (cases === 0) return '- | -';
  return `${agreed} / ${cases} (${((100 * agreed) / cases).toFixed(1)}%) | ${falseEqual.length}`;
};

function report(suite: Suite): void {
  const outcomes = runSuite(suite);
  console.log(`\n## ${suite.name}\n`);
  console.log(
    '| category | cases | equal / not | all: agreement | false "equal" | untouched: agreement | false "equal" |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  const row = (name: string, group: readonly CaseOutcome[]): void => {
    const positives = group.filter((outcome) => outcome.testCase.expected).length;
    const untouched = group.filter((outcome) => isUntouched(outcome));
    console.log(
      `| ${name} | ${group.length} | ${positives} / ${group.length - positives} | ${score(group)} | ${score(untouched)} |`,
    );
  };
  for (const group of Object.keys(suite.groups))
    row(
      group,
      outcomes.filter((outcome) => outcome.group === group),
    );
  row('**all**', outcomes);
  const shown = agreementOf(outcomes).disagreements.filter(
    (outcome) => showUntouched || !isUntouched(outcome),
  );
  console.log(`\n${shown.length} disagreements shown${showUntouched ? '' : ' (tuning part only)'}:\n`);
  console.log('| category | gold | prediction | suite | ours (extracted) | why |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const { group, testCase, correct, extracted } of shown) {
    const reason = differenceFor(suite, testCase)?.reason ?? 'UNLISTED';
    console.log(
      `| ${group} | ${cell(testCase.gold)} | ${cell(testCase.pred)} | ${verdict(testCase.expected)} | ${verdict(correct)} (${cell(extracted ?? 'none')}) | ${reason} |`,
    );
  }
}

report(heldOutMathVerifySuite);
report(heldOutGraderSuite);
