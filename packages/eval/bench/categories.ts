// Agreement on the held-out suites of issue 37 per category, with the count of false "equal" (a wrong answer graded
// equal) and every disagreement: suite 1 (six graders' tests, tuned on), suite 2 (lighteval), and the held-out
// suites A (newer Math-Verify tests) and B (other graders' remaining cases), whose untouched third (every third case
// of a group, never looked at while the grader was changed) is reported apart and its disagreements printed only
// with --show-untouched; then issue 45's commitment suite. Run from the repository root:
//   pnpm bench packages/eval/bench/categories.ts [--show-untouched]
import {
  agreementOf,
  type CaseOutcome,
  differenceFor,
  isUntouched,
  runSuite,
  type Suite,
} from '../test/conformance/suite';
import {
  categorySuite,
  commitmentSuite,
  heldOutGraderSuite,
  heldOutMathVerifySuite,
  lightevalSuite,
} from '../test/conformance/suites';

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

/** `split`: report the untouched third apart and hide its disagreements unless asked. */
function report(suite: Suite, split: boolean): void {
  const outcomes = runSuite(suite);
  const untouchedColumns = split ? ' untouched: agreement | false "equal" |' : '';
  console.log(`\n## ${suite.name}\n`);
  console.log(`| category | cases | equal / not | agreement | false "equal" |${untouchedColumns}`);
  console.log(`| --- | --- | --- | --- | --- |${split ? ' --- | --- |' : ''}`);
  const row = (name: string, group: readonly CaseOutcome[]): void => {
    const positives = group.filter((outcome) => outcome.testCase.expected).length;
    const untouched = split ? ` ${score(group.filter(isUntouched))} |` : '';
    console.log(
      `| ${name} | ${group.length} | ${positives} / ${group.length - positives} | ${score(group)} |${untouched}`,
    );
  };
  for (const group of Object.keys(suite.groups)) {
    row(
      group,
      outcomes.filter((outcome) => outcome.group === group),
    );
  }
  row('all', outcomes);
  const shown = agreementOf(outcomes).disagreements.filter(
    (outcome) => !split || showUntouched || !isUntouched(outcome),
  );
  const hidden = split && !showUntouched ? ' (the untouched third hidden: --show-untouched)' : '';
  console.log(`\n${shown.length} cases decided differently${hidden}:\n`);
  console.log('| category | gold | prediction | suite | ours (extracted) | why |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const { group, testCase, correct, extracted } of shown) {
    const reason = differenceFor(suite, testCase)?.reason ?? 'UNLISTED';
    console.log(
      `| ${group} | ${cell(testCase.gold)} | ${cell(testCase.pred)} | ${verdict(testCase.expected)} | ${verdict(correct)} (${cell(extracted ?? 'none')}) | ${reason} |`,
    );
  }
}

report(categorySuite, false);
report(lightevalSuite, false);
report(heldOutMathVerifySuite, true);
report(heldOutGraderSuite, true);
report(commitmentSuite, false);
