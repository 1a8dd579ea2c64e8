// Independent reference for scalar verdicts: sympy (python3 with sympy, not a dependency of this package) decides
// the hand-written scalar pairs by simplify(a - b) == 0, from our parse trees printed as sympy expressions, and
// this script reports where our verdicts differ. It checks the comparison (exact, numeric, probing), not parsing.
// Run from the repository root: pnpm bench packages/eval/bench/sympy-crosscheck.ts
import { execFileSync } from 'node:child_process';
import { compareAnswers, normalizeAnswer } from '@taorl/eval';
import type { Expr } from '../src/latex/ast';
import { parseLatex } from '../src/latex/parse';
import { caseClasses } from '../test/cases';
import { heldOutCases, secondHeldOutCases } from '../test/heldOutCases';

const functionNames: Record<string, string> = {
  sqrt: 'sqrt',
  abs: 'Abs',
  floor: 'floor',
  ceil: 'ceiling',
  factorial: 'factorial',
  binom: 'binomial',
  exp: 'exp',
  ln: 'log',
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  sec: 'sec',
  csc: 'csc',
  cot: 'cot',
  arcsin: 'asin',
  arccos: 'acos',
  arctan: 'atan',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
};

/** A sympy expression for a scalar tree, or null for structures (tuples, sets, relations, text). */
function toSympy(expr: Expr): string | null {
  switch (expr.kind) {
    case 'number':
      return `Rational(${expr.value.num}, ${expr.value.den})`;
    case 'symbol':
      return `Symbol(${JSON.stringify(expr.name)})`;
    case 'constant':
      return { pi: 'pi', e: 'E', i: 'I', infinity: 'oo' }[expr.name];
    case 'negate': {
      const operand = toSympy(expr.operand);
      return operand && `(-(${operand}))`;
    }
    case 'binary': {
      const left = toSympy(expr.left);
      const right = toSympy(expr.right);
      if (!left || !right || expr.op === '±') return null;
      return `((${left})${expr.op === '^' ? '**' : expr.op}(${right}))`;
    }
    case 'call': {
      const args = expr.args.map(toSympy);
      // Sums, products and integrals are opaque to the grader: no sympy counterpart is compared.
      if (expr.name === 'operator' || args.some((arg) => arg === null)) return null;
      if (expr.name === 'root') return `real_root(${args[0]}, ${args[1]})`;
      if (expr.name === 'log') return args.length === 2 ? `log(${args[0]}, ${args[1]})` : `log(${args[0]})`;
      return `${functionNames[expr.name]}(${args.join(', ')})`;
    }
    default:
      return null;
  }
}

const pairs: { className: string; pred: string; gold: string; a: string; b: string; ours: boolean }[] = [];
const batches = [
  ...Object.entries(caseClasses),
  ...Object.entries(heldOutCases),
  ...Object.entries(secondHeldOutCases),
];
for (const [className, cases] of batches) {
  for (const [pred, gold] of cases) {
    try {
      const a = toSympy(parseLatex(normalizeAnswer(pred).text, { maxDepth: 64 }));
      const b = toSympy(parseLatex(normalizeAnswer(gold).text, { maxDepth: 64 }));
      if (a && b) pairs.push({ className, pred, gold, a, b, ours: compareAnswers(pred, gold).equivalent });
    } catch {
      // Not a scalar pair: skipped.
    }
  }
}

const program = `
import json, sys
from sympy import *
pairs = json.load(sys.stdin)
out = []
for a, b in pairs:
    try:
        out.append(bool(simplify(eval(a) - eval(b)) == 0))
    except Exception:
        out.append(None)
print(json.dumps(out))
`;
const verdicts = JSON.parse(
  execFileSync('python3', ['-c', program], {
    input: JSON.stringify(pairs.map((pair) => [pair.a, pair.b])),
    encoding: 'utf8',
    timeout: 300_000,
  }),
) as (boolean | null)[];

let agreed = 0;
let decided = 0;
const differences: string[] = [];
pairs.forEach((pair, index) => {
  const reference = verdicts[index];
  if (reference === null || reference === undefined) return;
  decided += 1;
  if (reference === pair.ours) agreed += 1;
  else
    differences.push(
      `| ${pair.className} | \`${pair.pred}\` | \`${pair.gold}\` | ${pair.ours} | ${reference} |`,
    );
});
console.log(`scalar pairs: ${pairs.length}, decided by sympy: ${decided}, agreement: ${agreed}/${decided}`);
console.log('| class | pred | gold | ours | sympy simplify |');
console.log('| --- | --- | --- | --- | --- |');
for (const line of differences) console.log(line);
