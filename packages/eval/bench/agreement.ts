// Agreement of isEquivalent with the expected verdicts of the hand-written cases, per comparison class.
// Run from the repository root: pnpm bench packages/eval/bench/agreement.ts
import { compareAnswers } from '@taorl/eval';
import { caseClasses } from '../test/cases';
import { heldOutCases, secondHeldOutCases } from '../test/heldOutCases';

console.log('| class | cases | equivalent / not | agreement | disagreements |');
console.log('| --- | --- | --- | --- | --- |');
let total = 0;
let agreed = 0;
const batches = [
  ...Object.entries(caseClasses),
  ...Object.entries(heldOutCases).map(([name, cases]) => [`held-out: ${name}`, cases] as const),
  ...Object.entries(secondHeldOutCases).map(([name, cases]) => [`held-out 2: ${name}`, cases] as const),
];
for (const [name, cases] of batches) {
  const wrong = cases.filter(([pred, gold, expected]) => compareAnswers(pred, gold).equivalent !== expected);
  const positives = cases.filter(([, , expected]) => expected).length;
  total += cases.length;
  agreed += cases.length - wrong.length;
  const listed = wrong.map(([pred, gold]) => `\`${pred}\` vs \`${gold}\``).join('; ');
  console.log(
    `| ${name} | ${cases.length} | ${positives} / ${cases.length - positives} | ${((100 * (cases.length - wrong.length)) / cases.length).toFixed(1)}% | ${listed || '–'} |`,
  );
}
console.log(`| all | ${total} | | ${((100 * agreed) / total).toFixed(1)}% | |`);
