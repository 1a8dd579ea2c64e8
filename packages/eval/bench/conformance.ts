// Agreement with the public graders' suites (Math-Verify, Qwen2.5-Math, minerva_math) and the near-miss suite,
// with every disagreement and its listed reason. Run: pnpm bench packages/eval/bench/conformance.ts
import { compareAnswers, grade } from '@taorl/eval';
import { nearMissCases, responseNearMissCases } from '../test/conformance/nearMissCases';
import { agreementOf, differenceFor, runSuite } from '../test/conformance/suite';
import { suites } from '../test/conformance/suites';

console.log('| suite | cases | equal / not | agreement | false "equal" |');
console.log('| --- | --- | --- | --- | --- |');
for (const suite of suites) {
  const outcomes = runSuite(suite);
  const { cases, agreed, falseEqual } = agreementOf(outcomes);
  const positives = outcomes.filter((outcome) => outcome.testCase.expected).length;
  const percent = ((100 * agreed) / cases).toFixed(1);
  console.log(
    `| ${suite.name} | ${cases} | ${positives} / ${cases - positives} | ${agreed} / ${cases} (${percent}%) | ${falseEqual.length} |`,
  );
}
const nearMisses = Object.values(nearMissCases).flat();
const falseEqual = nearMisses.filter(
  ([pred, gold]) => compareAnswers(pred, gold).equivalent || compareAnswers(gold, pred).equivalent,
);
console.log(
  `| near misses | ${nearMisses.length} | 0 / ${nearMisses.length} | ${nearMisses.length - falseEqual.length} / ${nearMisses.length} | ${falseEqual.length} |`,
);
const responseNearMisses = Object.values(responseNearMissCases).flat();
const responseFalseEqual = responseNearMisses.filter(([response, gold]) => grade(response, gold).correct);
console.log(
  `| near misses of extraction (whole responses) | ${responseNearMisses.length} | 0 / ${responseNearMisses.length} | ${responseNearMisses.length - responseFalseEqual.length} / ${responseNearMisses.length} | ${responseFalseEqual.length} |`,
);

const cell = (text: string): string => {
  const short = text.length > 90 ? `...${text.slice(-87)}` : text;
  return `\`${short.replace(/\n/g, '\\n').replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
};
for (const suite of suites) {
  const { disagreements } = agreementOf(runSuite(suite));
  console.log(`\n### ${suite.name}: ${disagreements.length} cases decided differently\n`);
  console.log('| gold | prediction | suite | ours | why |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const { testCase, correct } of disagreements) {
    const reason = differenceFor(suite, testCase)?.reason ?? 'UNLISTED';
    const verdict = (equal: boolean): string => (equal ? 'equal' : 'not equal');
    console.log(
      `| ${cell(testCase.gold)} | ${cell(testCase.pred)} | ${verdict(testCase.expected)} | ${verdict(correct)} | ${reason} |`,
    );
  }
}
