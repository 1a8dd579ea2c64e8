import { describe, expect, it } from 'vitest';
import { decisionPointStats } from '../src/decision-points.js';

/** A response of policy (1) and observation (0) tokens with one entropy per token. */
const trajectory = (
  mask: number[],
  entropies: number[],
  calls: Array<{ status: 'ok' | 'error'; startToken: number; endToken: number }>,
) => ({
  lossMask: Uint8Array.from(mask),
  entropies: Float32Array.from(entropies),
  toolCalls: calls.map((call) => ({ ...call, code: 'print(1)', output: '1' })),
});

describe('decisionPointStats', () => {
  it('counts the first policy token after each successful call and the bonus it received', () => {
    const batch = [
      // call [2,4) ok: decision at 4 (entropy 0.9); call [6,8) failed: no decision point.
      trajectory(
        [1, 1, 0, 0, 1, 1, 0, 0, 1],
        [0, 0, 0, 0, 0.9, 0.1, 0, 0, 0.8],
        [
          { status: 'ok', startToken: 2, endToken: 4 },
          { status: 'error', startToken: 6, endToken: 8 },
        ],
      ),
      // call [1,3) ok: decision at 3 (entropy 0.3); call [4,6) ok but the response ends there.
      trajectory(
        [1, 0, 0, 1, 0, 0],
        [0, 0, 0, 0.3, 0, 0],
        [
          { status: 'ok', startToken: 1, endToken: 3 },
          { status: 'ok', startToken: 4, endToken: 6 },
        ],
      ),
    ];
    const stats = decisionPointStats(batch, 0.5);
    expect(stats.count).toBe(2);
    expect(stats.meanEntropy).toBeCloseTo((0.9 + 0.3) / 2, 6);
    expect(stats.bonusTokens).toBe(1);
    expect(decisionPointStats(batch, null).bonusTokens).toBe(0);
    expect(decisionPointStats([], 0.5)).toEqual({ count: 0, meanEntropy: 0, bonusTokens: 0 });
  });
});
