import type { Expr, RelationOp } from '../latex/ast';
import type { Complex } from '../math/complex';
import type { CompareContext } from './context';
import { evaluateComplex, freeSymbols } from './evaluate';
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
  const p = groupAssignments(foldMatrices(expandPlusMinus(pred)));
  const g = groupAssignments(foldMatrices(expandPlusMinus(gold)));

  if (p.kind === 'relation' && g.kind === 'relation') return relationsEqual(p, g, context);
  if (p.kind === 'relation' || g.kind === 'relation') {
    const pAsInterval = asIntervals(p, context);
    const gAsInterval = asIntervals(g, context);
    if (pAsInterval && gAsInterval) return expressionsEqual(pAsInterval, gAsInterval, context);
    const pValue = assignedValue(p);
    const gValue = assignedValue(g);
    if (pValue === p && gValue === g) return false;
    return expressionsEqual(pValue, gValue, context);
  }

  if (isCollection(p) && isCollection(g)) {
    if (p.kind === 'list' && g.kind === 'list' && listsKeepOrder(p, g, context)) {
      return (
        p.items.length === g.items.length &&
        p.items.every((item, i) => expressionsEqual(item, g.items[i]!, context))
      );
    }
    return unorderedEqual(p.items, g.items, context, p.kind === 'set' || g.kind === 'set');
  }
  if (isCollection(g) && g.items.length === 1) return expressionsEqual(p, g.items[0]!, context);
  // "\boxed{15\frac{39}{40}}, or \boxed{\frac{639}{40}}": one answer restated in several forms.
  if (isCollection(p) && !isCollection(g) && restatesOneValue(p.items, context)) {
    return expressionsEqual(p.items[0]!, g, context);
  }
  if (isCollection(p) && p.items.length === 1) return expressionsEqual(p.items[0]!, g, context);

  if (p.kind === 'union' || g.kind === 'union') {
    // "x < -1 or x > 1" (a list of inequalities) stands for the union of their intervals.
    const pUnion = asIntervals(p, context) ?? p;
    const gUnion = asIntervals(g, context) ?? g;
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

/**
 * Whether two comma lists compare in order. A list of numbers written in increasing or decreasing order ("-5, -2,
 * 7", "1, 2") is how a set of solutions is written, and lists of anything but real numbers (expressions, tuples)
 * are sets of solutions too: they match in any order. A list of three or more numbers in neither order ("4, 10, -2",
 * the values of a, b, c as asked) carries its order; so does a prediction that lists them in neither order: it
 * commits to an order, which must be the gold's (hendrycks' MATH grader: "4, 10, -2" is not "10, 4, -2").
 */
function listsKeepOrder(
  pred: Extract<Expr, { kind: 'list' }>,
  gold: Extract<Expr, { kind: 'list' }>,
  context: CompareContext,
): boolean {
  if (gold.items.length < 3) return false;
  const goldValues = realValues(gold.items, context);
  if (goldValues === null) return false;
  const predValues = realValues(pred.items, context);
  return !isMonotonic(goldValues) || (predValues !== null && !isMonotonic(predValues));
}

function isMonotonic(values: readonly number[]): boolean {
  const steps = values.slice(1).map((value, index) => value - values[index]!);
  return steps.every((step) => step >= 0) || steps.every((step) => step <= 0);
}

/** The values of items that are all real numbers (no variables), or null. */
function realValues(items: readonly Expr[], context: CompareContext): number[] | null {
  const values: number[] = [];
  for (const item of items) {
    if (freeSymbols(item).size > 0) return null;
    let value: Complex;
    try {
      value = evaluateComplex(item, new Map(), context.deadline);
    } catch (error) {
      if (error instanceof RangeError) return null;
      throw error;
    }
    if (!Number.isFinite(value.re) || Math.abs(value.im) > 1e-12 * Math.max(1, Math.abs(value.re)))
      return null;
    values.push(value.re);
  }
  return values;
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

/**
 * A one-to-one matching, each gold item used once (greedy is enough for answers of a few items). A solution tuple
 * that repeats an earlier one is dropped first: a solution set lists each solution once however often it is written.
 */
function unorderedEqual(
  predItems: readonly Expr[],
  goldItems: readonly Expr[],
  context: CompareContext,
  asSets = false,
): boolean {
  const pred = withoutRepeats(predItems, context, asSets);
  const gold = withoutRepeats(goldItems, context, asSets);
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

/**
 * Drops repeats from a set (\\{1, 1, 2\\} is \\{1, 2\\}) and from a list of solution tuples ((3,17,3,7) written
 * twice is one solution); a list of numbers keeps them, since 1, 1, 2 may be roots counted with multiplicity.
 */
function withoutRepeats(items: readonly Expr[], context: CompareContext, asSet: boolean): readonly Expr[] {
  if (items.length < 2 || !(asSet || items.every((item) => item.kind === 'tuple'))) return items;
  return items.filter(
    (item, index) => !items.slice(0, index).some((earlier) => sameItem(item, earlier, context)),
  );
}

/** Whether two items of one answer are the same; items that cannot be compared (a list and a number) are not. */
function sameItem(a: Expr, b: Expr, context: CompareContext): boolean {
  try {
    return expressionsEqual(a, b, context);
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
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
  return pRows.every((row, i) =>
    row.every((item, j) => {
      const goldItem = gRows[i]![j]!;
      return (
        expressionsEqual(item, goldItem, context) ||
        roundsTo(item, goldItem, context) ||
        roundsTo(goldItem, item, context)
      );
    }),
  );
}

/**
 * A matrix entry written as a decimal of two or more places (0.29, -0.186) stands for any value that rounds to
 * it: matrices and vectors are printed rounded (Qwen2.5-Math's grader accepts 0.29 for 0.290243...). Scalars keep
 * the relative tolerance: a lone 0.33 is not 1/3.
 */
function roundsTo(value: Expr, rounded: Expr, context: CompareContext): boolean {
  const negative = rounded.kind === 'negate';
  const literal = negative ? rounded.operand : rounded;
  if (literal.kind !== 'number' || literal.decimal !== true) return false;
  const places = decimalPlaces(literal.value.num, literal.value.den);
  if (places === null || places < 2) return false;
  const exact = realValues([value], context)?.[0];
  if (exact === undefined) return false;
  const target = (negative ? -1 : 1) * (Number(literal.value.num) / Number(literal.value.den));
  return Math.abs(exact - target) <= 0.5 * 10 ** -places * (1 + 1e-9);
}

/** The fewest decimal places that write num/den exactly, or null beyond 15. */
function decimalPlaces(num: bigint, den: bigint): number | null {
  let scaled = num;
  for (let places = 0; places <= 15; places++) {
    if (scaled % den === 0n) return places;
    scaled *= 10n;
  }
  return null;
}

function matrixRows(expr: Expr): (readonly Expr[])[] | null {
  if (expr.kind === 'matrix') {
    const rows = expr.rows;
    return rows.length === 1 ? rows[0]!.map((item) => [item]) : rows.map((row) => [...row]);
  }
  // A vector written as a tuple, (1, 2) or [1, 2] (Python's and numpy's printing).
  if (expr.kind === 'tuple' && expr.open === expr.close.replace(')', '(').replace(']', '[')) {
    return expr.items.map((item) => [item]);
  }
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
  // "1 = \\zzz = x = 0": a chain through a variable to a closed value assigns that value.
  const closed = freeSymbols(last).size === 0;
  if (closed && expr.items.length > 2 && expr.items.slice(1, -1).some(isAssignmentTarget)) return last;
  if (freeSymbols(first).size > 0) return expr;
  if (expr.items.length === 2 && isAssignmentTarget(last)) return first;
  // "7 = 11a + c" is an equation in a and c; "2 + 3 = 5" is a computation whose result is its last value.
  return expr.items.every((item) => freeSymbols(item).size === 0) ? last : expr;
}

/**
 * The left side of an assignment: a variable (x, a_1, y'), a function applied to its arguments (f(x)), a tuple
 * of variables ((p, q) = (3, 2)), or a label made of capital letters: a segment AB, a length |AB|, a ratio
 * NO/BO or V_1 : V_2. Products of small letters (xy = 0) are expressions, not labels.
 */
function isAssignmentTarget(expr: Expr): boolean {
  if (expr.kind === 'symbol') return true;
  if (isFunctionApplication(expr)) return true;
  if (expr.kind === 'tuple') return expr.open === '(' && expr.items.every((item) => item.kind === 'symbol');
  return isCapitalLabel(expr);
}

function isFunctionApplication(expr: Expr): boolean {
  return expr.kind === 'binary' && expr.applied === true && expr.left.kind === 'symbol';
}

function isCapitalLabel(expr: Expr): boolean {
  switch (expr.kind) {
    case 'symbol':
      return /^[A-Z]/.test(expr.name);
    case 'binary':
      return (expr.op === '*' || expr.op === '/') && isCapitalLabel(expr.left) && isCapitalLabel(expr.right);
    case 'call':
      return expr.name === 'abs' && isCapitalLabel(expr.args[0]!);
    default:
      return false;
  }
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
  const pInterval = asIntervals(pred, context);
  const gInterval = asIntervals(gold, context);
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
  // "a - b = 1.732" against "a - b = \sqrt3": the same left side, so the right sides compare as values (with the
  // tolerance a decimal gets), which proportionality of the whole equations would not allow.
  if (pred.ops[0] === '=' && gold.ops[0] === '=' && expressionsEqual(pLeft!, gLeft!, context)) {
    return expressionsEqual(pRight!, gRight!, context);
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
function asIntervals(expr: Expr, context: CompareContext): Expr | null {
  if (expr.kind === 'tuple' || expr.kind === 'union') return expr;
  if (expr.kind === 'list' && expr.items.length > 1) {
    const items = expr.items.map((item) => asIntervals(item, context));
    return items.every((item): item is Expr => item !== null) ? { kind: 'union', items } : null;
  }
  if (
    expr.kind === 'relation' &&
    expr.ops.length === 1 &&
    expr.ops[0] === '=' &&
    (expr.items[0]!.kind === 'symbol' || isFunctionApplication(expr.items[0]!))
  ) {
    const assigned = expr.items[1]!;
    return assigned.kind === 'tuple' || assigned.kind === 'union' ? assigned : null;
  }
  if (expr.kind !== 'relation' || expr.ops.some((op) => op === '=' || op === '!=')) return null;
  const variableIndex = expr.items.findIndex(
    (item) => item.kind === 'symbol' || isFunctionApplication(item) || isAbsoluteValue(item),
  );
  if (variableIndex < 0 || expr.items.length > 3) return null;
  let lower: Bound = [minusInfinity, false];
  let upper: Bound = [infinity, false];
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
  if (isAbsoluteValue(expr.items[variableIndex]!)) return absoluteIntervals(lower, upper, context);
  return interval(lower, upper);
}

type Bound = readonly [value: Expr, inclusive: boolean];

function interval(lower: Bound, upper: Bound): Interval {
  return {
    kind: 'tuple',
    open: lower[1] ? '[' : '(',
    close: upper[1] ? ']' : ')',
    items: [lower[0], upper[0]],
  };
}

/** |z|: the absolute value of one variable. */
function isAbsoluteValue(expr: Expr): boolean {
  return expr.kind === 'call' && expr.name === 'abs' && expr.args[0]!.kind === 'symbol';
}

/**
 * a <= |z| <= b as intervals of z: [-b, -a] ∪ [a, b] when a > 0 (or a = 0 excluded), else the one interval
 * [-b, b]. Null when the lower bound is not a number.
 */
function absoluteIntervals(lower: Bound, upper: Bound, context: CompareContext): Expr | null {
  const negated = (bound: Bound): Bound => [negate(bound[0]), bound[1]];
  if (lower[0] === minusInfinity) return interval(negated(upper), upper);
  const a = realValues([lower[0]], context)?.[0];
  if (a === undefined) return null;
  if (a < 0 || (a === 0 && lower[1])) return interval(negated(upper), upper);
  return { kind: 'union', items: [interval(negated(upper), negated(lower)), interval(lower, upper)] };
}

function negate(expr: Expr): Expr {
  if (expr === infinity) return minusInfinity;
  return expr.kind === 'negate' ? expr.operand : { kind: 'negate', operand: expr };
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

type Matrix = Extract<Expr, { kind: 'matrix' }>;

/**
 * Sums, differences and products of matrices written out ("\\begin{pmatrix}..\\end{pmatrix} +
 * \\begin{pmatrix}..\\end{pmatrix}") as one matrix of entry expressions; anything else as it is.
 */
function foldMatrices(expr: Expr): Expr {
  if (expr.kind !== 'binary' || (expr.op !== '+' && expr.op !== '-' && expr.op !== '*')) return expr;
  const left = foldMatrices(expr.left);
  const right = foldMatrices(expr.right);
  if (left.kind !== 'matrix' || right.kind !== 'matrix') return expr;
  const [a, b] = [left.rows, right.rows];
  if (expr.op === '*') {
    if (a[0]!.length !== b.length) return expr;
    const rows = a.map((row) =>
      b[0]!.map((_, j) =>
        row
          .map((entry, k): Expr => ({ kind: 'binary', op: '*', left: entry, right: b[k]![j]! }))
          .reduce((sum, term): Expr => ({ kind: 'binary', op: '+', left: sum, right: term })),
      ),
    );
    return { kind: 'matrix', rows } satisfies Matrix;
  }
  if (a.length !== b.length || a.some((row, i) => row.length !== b[i]!.length)) return expr;
  const op = expr.op;
  return {
    kind: 'matrix',
    rows: a.map((row, i) =>
      row.map((entry, j): Expr => ({ kind: 'binary', op, left: entry, right: b[i]![j]! })),
    ),
  };
}

/**
 * "p=5, q=2; p=7, q=2": a list of assignments whose variables repeat in a cycle is a list of tuples, (5, 2) and
 * (7, 2), in the cycle's order.
 */
function groupAssignments(expr: Expr): Expr {
  if (expr.kind !== 'list' || expr.items.length < 4) return expr;
  const names: string[] = [];
  for (const item of expr.items) {
    if (item.kind !== 'relation' || item.ops.length !== 1 || item.ops[0] !== '=') return expr;
    if (item.items[0]!.kind !== 'symbol') return expr;
    names.push(item.items[0]!.name);
  }
  const period = names.indexOf(names[0]!, 1);
  if (period < 2 || names.length % period !== 0) return expr;
  if (names.some((name, index) => name !== names[index % period])) return expr;
  const values = expr.items.map((item) => (item as Extract<Expr, { kind: 'relation' }>).items[1]!);
  const items: Expr[] = [];
  for (let start = 0; start < values.length; start += period) {
    items.push({ kind: 'tuple', open: '(', close: ')', items: values.slice(start, start + period) });
  }
  return { kind: 'list', items };
}
