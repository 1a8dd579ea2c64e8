// Agreement on the two held-out suites of issue 37 per category, with the count of false "equal" (a wrong answer
// graded equal) and every disagreement. Run from the repository root: pnpm bench packages/eval/bench/categories.ts
import {
  agreementOf,
  type CaseOutcome,
  differenceFor,
  runSuite,
  type Suite,
} from '../test/conformance/suite';
import { categorySuite, lightevalSuite } from '../test/conformance/suites';

const cell = (text: string): string => {
  const short = text.length > 90 ? `...${text.slice(-87)}` : text;
  return `\`${short.replace(/\n/g, '\\n').replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
};
const verdict = (equal: boolean): string => (equal ? 'equal' : 'not equal');

function report(suite: Suite): void {
  const outcomes = runSuite(suite);
  console.log(`\n## ${suite.name}\n`);
  console.log('| category | cases | equal / not | agreement | false "equal" |');
  console.log('| --- | --- | --- | --- | --- |');
  const row = (name: string, group: readonly CaseOutcome[]): void => {
    const { cases, agreed, falseEqual } = agreementOf(group);
    const positives = group.filter((outcome) => outcome.testCase.expected).length;
    const percent = ((100 * agreed) / cases).toFixed(1);
    console.log(
      `| ${name} | ${cases} | ${positives} / ${cases - positives} | ${agreed} / ${cases} (${percent}%) | ${falseEqual.length} |`,
    );
  };
  for (const group of Object.keys(suite.groups)) {
    row(
      group,
      outcomes.filter((outcome) => outcome.group === group),
    );
  }
  row('all', outcomes);
  const { disagreements } = agreementOf(outcomes);
  console.log(`\n${disagreements.length} cases decided differently:\n`);
  console.log('| category | gold | prediction | suite | ours (extracted) | why |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const { group, testCase, correct, extracted } of disagreements) {
    const reason = differenceFor(suite, testCase)?.reason ?? 'UNLISTED';
    console.log(
      `| ${group} | ${cell(testCase.gold)} | ${cell(testCase.pred)} | ${verdict(testCase.expected)} | ${verdict(correct)} (${cell(extracted ?? 'none')}) | ${reason} |`,
    );
  }
}

report(categorySuite);
report(lightevalSuite);
