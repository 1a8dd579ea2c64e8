import type { Expr, RelationOp } from '../latex/ast';
import type { CompareContext } from './context';
import { freeSymbols } from './evaluate';
import { proportional, scalarsEqual } from './scalar';

type Interval = Extract<Expr, { kind: 'tuple' }>;
const infinity: Expr = { kind: 'constant', name: 'infinity' };
const minusInfinity: Expr = { kind: 'negate', operand: infinity };

/**
 * Structural equivalence: the shapes must match (tuple with tuple, set with set, ...) before the scalars inside are
 * compared. Assignments "x = 3" count as their value against a non-equation, inequalities in one variable as
 * intervals, and "a ± b" as the two values a + b and a - b.
 */
export function expressionsEqual(pred: Expr, gold: Expr, context: CompareContext): boolean {
  context.deadline.check();
  const p = expandPlusMinus(pred);
  const g = expandPlusMinus(gold);

  if (p.kind === 'relation' && g.kind === 'relation') return relationsEqual(p, g, context);
  if (p.kind === 'relation' || g.kind === 'relation') {
    const pAsInterval = asIntervals(p);
    const gAsInterval = asIntervals(g);
    if (pAsInterval && gAsInterval) return expressionsEqual(pAsInterval, gAsInterval, context);
    const pValue = assignedValue(p);
    const gValue = assignedValue(g);
    if (pValue === p && gValue === g) return false;
    return expressionsEqual(pValue, gValue, context);
  }

  if (isCollection(p) && isCollection(g)) return unorderedEqual(p.items, g.items, context);
  if (isCollection(g) && g.items.length === 1) return expressionsEqual(p, g.items[0]!, context);
  // "\boxed{15\frac{39}{40}}, or \boxed{\frac{639}{40}}": one answer restated in several forms.
  if (isCollection(p) && !isCollection(g) && restatesOneValue(p.items, context)) {
    return expressionsEqual(p.items[0]!, g, context);
  }
  if (isCollection(p) && p.items.length === 1) return expressionsEqual(p.items[0]!, g, context);

  if (p.kind === 'union' || g.kind === 'union') {
    // "x < -1 or x > 1" (a list of inequalities) stands for the union of their intervals.
    const pUnion = asIntervals(p) ?? p;
    const gUnion = asIntervals(g) ?? g;
    const pItems = pUnion.kind === 'union' ? pUnion.items : [pUnion];
    const gItems = gUnion.kind === 'union' ? gUnion.items : [gUnion];
    return unorderedEqual(pItems, gItems, context);
  }
  if (p.kind === 'tuple' && g.kind === 'tuple') return tuplesEqual(p, g, context);
  if (p.kind === 'matrix' || g.kind === 'matrix') return matricesEqual(p, g, context);
  if (p.kind === 'text' || g.kind === 'text') {
    return p.kind === 'text' && g.kind === 'text' && normaliseWords(p.text) === normaliseWords(g.text);
  }
  if (p.kind === 'tuple' || g.kind === 'tuple') return false;
  return scalarsEqual(p, g, context);
}

/** Collapses case, spacing and punctuation of words ("\text{(C)}" and "c" match). */
export function normaliseWords(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '');
}

function restatesOneValue(items: readonly Expr[], context: CompareContext): boolean {
  return items.length > 1 && items.every((item) => expressionsEqual(item, items[0]!, context));
}

function isScalarLike(expr: Expr): boolean {
  return ['number', 'symbol', 'constant', 'binary', 'negate', 'call'].includes(expr.kind);
}

function isCollection(expr: Expr): expr is Extract<Expr, { kind: 'set' | 'list' }> {
  return expr.kind === 'set' || expr.kind === 'list';
}

/** A one-to-one matching, each gold item used once (greedy is enough for answers of a few items). */
function unorderedEqual(pred: readonly Expr[], gold: readonly Expr[], context: CompareContext): boolean {
  if (pred.length !== gold.length) return false;
  const used = new Array<boolean>(gold.length).fill(false);
  return pred.every((item) => {
    const match = gold.findIndex(
      (candidate, index) => !used[index] && expressionsEqual(item, candidate, context),
    );
    if (match < 0) return false;
    used[match] = true;
    return true;
  });
}

/** Ordered tuples need equal items; intervals also need the same openness at each end. */
function tuplesEqual(pred: Interval, gold: Interval, context: CompareContext): boolean {
  if (pred.items.length !== gold.items.length) return false;
  if (pred.open !== gold.open || pred.close !== gold.close) return false;
  return pred.items.every((item, index) => expressionsEqual(item, gold.items[index]!, context));
}

/** Elementwise; a one-column or one-row matrix also matches a tuple of the same entries (a vector). */
function matricesEqual(pred: Expr, gold: Expr, context: CompareContext): boolean {
  const pRows = matrixRows(pred);
  const gRows = matrixRows(gold);
  if (!pRows || !gRows) return false;
  if (pRows.length !== gRows.length || pRows.some((row, index) => row.length !== gRows[index]!.length)) {
    return false;
  }
  return pRows.every((row, i) => row.every((item, j) => expressionsEqual(item, gRows[i]![j]!, context)));
}

function matrixRows(expr: Expr): (readonly Expr[])[] | null {
  if (expr.kind === 'matrix') {
    const rows = expr.rows;
    return rows.length === 1 ? rows[0]!.map((item) => [item]) : rows.map((row) => [...row]);
  }
  if (expr.kind === 'tuple' && expr.open === '(' && expr.close === ')')
    return expr.items.map((item) => [item]);
  return null;
}

/**
 * What an equation asserts, when it is an assignment: "x = 3", "f(x) = 3", "a_1 = 3", a chain "x = 5+5+1 = 11"
 * and a reversed "3 = x" stand for their value; so does a computation "2+3 = 5" whose left side has no unknowns.
 * Any other equation ("a + 3z = 0", "2x + z = 1") is an equation, never a value: a bare 0 is not its answer.
 */
function assignedValue(expr: Expr): Expr {
  if (expr.kind !== 'relation' || expr.ops.some((op) => op !== '=')) return expr;
  const first = expr.items[0]!;
  const last = expr.items[expr.items.length - 1]!;
  if (last.kind === 'text') return expr;
  if (isAssignmentTarget(first)) return last;
  if (freeSymbols(first).size > 0) return expr;
  if (expr.items.length === 2 && isAssignmentTarget(last)) return first;
  return last;
}

/** The left side of an assignment: a variable (x, a_1, y') or a function applied to its arguments, f(x). */
function isAssignmentTarget(expr: Expr): boolean {
  return (
    expr.kind === 'symbol' || (expr.kind === 'binary' && expr.applied === true && expr.left.kind === 'symbol')
  );
}

/** An assignment chain "x = a = b" read as "x = b"; other relations as they are. */
function collapseAssignment(expr: Extract<Expr, { kind: 'relation' }>): Extract<Expr, { kind: 'relation' }> {
  if (expr.items.length <= 2 || expr.ops.some((op) => op !== '=') || !isAssignmentTarget(expr.items[0]!)) {
    return expr;
  }
  return { kind: 'relation', ops: ['='], items: [expr.items[0]!, expr.items[expr.items.length - 1]!] };
}

function relationsEqual(
  predRelation: Extract<Expr, { kind: 'relation' }>,
  goldRelation: Extract<Expr, { kind: 'relation' }>,
  context: CompareContext,
): boolean {
  const pred = collapseAssignment(predRelation);
  const gold = collapseAssignment(goldRelation);
  if (renamesFunction(pred, gold)) return expressionsEqual(pred.items[1]!, gold.items[1]!, context);
  const pInterval = asIntervals(pred);
  const gInterval = asIntervals(gold);
  if (pInterval && gInterval) return expressionsEqual(pInterval, gInterval, context);
  if (pred.ops.length !== 1 || gold.ops.length !== 1) return false;
  const [pLeft, pRight] = pred.items;
  const [gLeft, gRight] = gold.items;
  if (pred.ops[0] === '=' && gold.ops[0] === '=' && pLeft!.kind === 'symbol' && gLeft!.kind === 'symbol') {
    // x = 3 against x = 3.0, x ∈ [a, b] against x ∈ [a, b]: the same variable, so compare what it is assigned.
    if (pLeft!.name === gLeft!.name && (!isScalarLike(pRight!) || !isScalarLike(gRight!))) {
      return expressionsEqual(pRight!, gRight!, context);
    }
  }
  const pSide = oriented(pred.ops[0]!, pred.items[0]!, pred.items[1]!);
  const gSide = oriented(gold.ops[0]!, gold.items[0]!, gold.items[1]!);
  if (pSide.op !== gSide.op) return false;
  // Equations are equal up to any nonzero factor; inequalities only up to a positive one.
  return proportional(pSide.difference, gSide.difference, context, pSide.op !== '=' && pSide.op !== '!=');
}

/** "y = x^2" against "f(x) = x^2": the same function, named once as a dependent variable and once as f(x). */
function renamesFunction(
  pred: Extract<Expr, { kind: 'relation' }>,
  gold: Extract<Expr, { kind: 'relation' }>,
): boolean {
  if (pred.ops.length !== 1 || gold.ops.length !== 1 || pred.ops[0] !== '=' || gold.ops[0] !== '=')
    return false;
  const [p, g] = [pred.items[0]!, gold.items[0]!];
  const isFunction = (expr: Expr): boolean => expr.kind === 'binary' && expr.applied === true;
  return (isFunction(p) && g.kind === 'symbol') || (isFunction(g) && p.kind === 'symbol');
}

/** a op b as (a - b) op' 0 with op' one of =, !=, >, >= (swapping sides of < and <=). */
function oriented(op: RelationOp, left: Expr, right: Expr): { op: RelationOp; difference: Expr } {
  if (op === '<' || op === '<=') {
    return { op: op === '<' ? '>' : '>=', difference: { kind: 'binary', op: '-', left: right, right: left } };
  }
  return { op, difference: { kind: 'binary', op: '-', left, right } };
}

/**
 * x > a, a <= x < b, x ∈ [a, b], and lists ("or") or unions of such: the interval(s) of one variable they
 * describe; null otherwise.
 */
function asIntervals(expr: Expr): Expr | null {
  if (expr.kind === 'tuple' || expr.kind === 'union') return expr;
  if (expr.kind === 'list' && expr.items.length > 1) {
    const items = expr.items.map(asIntervals);
    return items.every((item): item is Expr => item !== null) ? { kind: 'union', items } : null;
  }
  if (
    expr.kind === 'relation' &&
    expr.ops.length === 1 &&
    expr.ops[0] === '=' &&
    expr.items[0]!.kind === 'symbol'
  ) {
    const assigned = expr.items[1]!;
    return assigned.kind === 'tuple' || assigned.kind === 'union' ? assigned : null;
  }
  if (expr.kind !== 'relation' || expr.ops.some((op) => op === '=' || op === '!=')) return null;
  const variableIndex = expr.items.findIndex((item) => item.kind === 'symbol');
  if (variableIndex < 0 || expr.items.length > 3) return null;
  let lower: [Expr, boolean] = [minusInfinity, false];
  let upper: [Expr, boolean] = [infinity, false];
  for (let index = 0; index < expr.ops.length; index++) {
    const op = expr.ops[index]!;
    const [left, right] = [expr.items[index]!, expr.items[index + 1]!];
    const inclusive = op.endsWith('=');
    const ascending = op.startsWith('<');
    if (index + 1 === variableIndex) {
      if (ascending) lower = [left, inclusive];
      else upper = [left, inclusive];
    } else if (index === variableIndex) {
      if (ascending) upper = [right, inclusive];
      else lower = [right, inclusive];
    } else {
      return null;
    }
  }
  return {
    kind: 'tuple',
    open: lower[1] ? '[' : '(',
    close: upper[1] ? ']' : ')',
    items: [lower[0], upper[0]],
  };
}

/** a ± b becomes the two-element list {a + b, a - b}; nested ± signs multiply out. */
function expandPlusMinus(expr: Expr): Expr {
  const values = plusMinusValues(expr, 0);
  return values.length === 1 ? expr : { kind: 'list', items: values };
}

function plusMinusValues(expr: Expr, depth: number): Expr[] {
  if (depth > 8) return [expr];
  if (expr.kind === 'binary') {
    const lefts = plusMinusValues(expr.left, depth + 1);
    const rights = plusMinusValues(expr.right, depth + 1);
    const ops = expr.op === '±' ? (['+', '-'] as const) : [expr.op];
    if (lefts.length === 1 && rights.length === 1 && expr.op !== '±') return [expr];
    return lefts.flatMap((left) =>
      rights.flatMap((right) => ops.map((op) => ({ kind: 'binary' as const, op, left, right }))),
    );
  }
  if (expr.kind === 'negate') {
    const values = plusMinusValues(expr.operand, depth + 1);
    return values.length === 1 ? [expr] : values.map((operand) => ({ kind: 'negate' as const, operand }));
  }
  return [expr];
}
