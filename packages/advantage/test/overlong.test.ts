import { describe, expect, it } from 'vitest';
import { overlongPenalty, overlongShaper, type RewardShaper, shapeRewards } from '../src/index';

describe('overlongPenalty (DAPO)', () => {
  it('is 0 up to L_max - L_buf, ramps linearly, and reaches -factor at L_max', () => {
    const options = { maxLength: 20480, buffer: 4096 };
    expect(overlongPenalty(0, options)).toBe(0);
    expect(overlongPenalty(16384, options)).toBe(0);
    expect(overlongPenalty(16384 + 1024, options)).toBe(-0.25);
    expect(overlongPenalty(20480, options)).toBe(-1);
    expect(overlongPenalty(20480, { ...options, factor: 0.5 })).toBe(-0.5);
  });

  it('defaults the buffer to L_max / 5 and the factor to 1', () => {
    // L_max 1000, L_buf 200: length 900 -> -(900 - 800) / 200.
    expect(overlongPenalty(900, { maxLength: 1000 })).toBe(-0.5);
  });

  it('rejects bad options and lengths by name', () => {
    expect(() => overlongPenalty(1, { maxLength: 0 })).toThrow(/option 'maxLength'/);
    expect(() => overlongPenalty(1, { maxLength: 10, buffer: 11 })).toThrow(/option 'buffer'/);
    expect(() => overlongPenalty(1, { maxLength: 10, factor: -1 })).toThrow(/option 'factor'/);
    expect(() => overlongPenalty(Number.NaN, { maxLength: 10 })).toThrow(/length must be a finite number/);
    expect(() => overlongPenalty(1, { maxLength: 10, bufer: 2 } as never)).toThrow(/unknown option 'bufer'/);
  });
});

describe('shapeRewards', () => {
  const batch = Object.freeze([
    Object.freeze({ groupId: 1, reward: 1, lossMask: new Uint8Array(95) }),
    Object.freeze({ groupId: 1, reward: 0, lossMask: new Uint8Array(10) }),
  ]);

  it('applies the overlong penalty to response length and returns new rewards', () => {
    const { rewards, diagnostics } = shapeRewards(batch, [overlongShaper({ maxLength: 100, buffer: 20 })]);
    // 95 tokens: -(95 - 80) / 20 = -0.75.
    expect(Array.from(rewards)).toEqual([0.25, 0]);
    expect(diagnostics).toEqual({ shaped: 1, meanDelta: -0.375 });
    expect(batch[0]!.reward).toBe(1);
  });

  it('chains user hooks in order and rejects a non-finite result', () => {
    const bonus: RewardShaper<(typeof batch)[number]> = (r, _t, i) => r + i;
    const double: RewardShaper<(typeof batch)[number]> = (r) => 2 * r;
    expect(Array.from(shapeRewards(batch, [bonus, double]).rewards)).toEqual([2, 2]);
    expect(() => shapeRewards(batch, [() => Number.NaN])).toThrow(
      /trajectory 0: a reward shaper returned NaN/,
    );
  });

  it('can measure length with a user function', () => {
    const shaper = overlongShaper<(typeof batch)[number]>({
      maxLength: 100,
      lengthOf: (t) => t.lossMask.length * 10,
    });
    // Lengths 950 and 100: -(950 - 80) / 20 = -43.5 and -(100 - 80) / 20 = -1.
    expect(Array.from(shapeRewards(batch, [shaper]).rewards)).toEqual([1 - 43.5, -1]);
  });
});
