import type { ArithStrategy } from './traces';

/**
 * The strategy a trajectory followed, read from its recorded tool calls (any tool format) and the calls its
 * problem needs: no call is `direct`, only failed calls `gave-up`, fewer successful calls than needed
 * `stopped-early`, all needed calls with a failure on the way `recovered`, otherwise `tool`.
 */
export function arithStrategyOf(
  toolCalls: ReadonlyArray<{ readonly status: string }>,
  requiredCalls: number,
): ArithStrategy {
  if (toolCalls.length === 0) return 'direct';
  const ok = toolCalls.filter((call) => call.status === 'ok').length;
  if (ok === 0) return 'gave-up';
  if (ok < requiredCalls) return 'stopped-early';
  return ok < toolCalls.length ? 'recovered' : 'tool';
}

/** Every strategy, in the order reports list them. */
export const ARITH_STRATEGIES: readonly ArithStrategy[] = [
  'direct',
  'tool',
  'recovered',
  'gave-up',
  'stopped-early',
];
