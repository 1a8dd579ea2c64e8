import { describe, expect, it } from 'vitest';
import { learningRateAt } from '../src/index';
import { validateSchedule } from '../src/optim/lr-schedule';

describe('learningRateAt', () => {
  it('keeps a constant rate', () => {
    expect([0, 1, 100].map((step) => learningRateAt(0.1, { kind: 'constant' }, step))).toEqual([
      0.1, 0.1, 0.1,
    ]);
  });

  it('warms up linearly from the first step, then holds', () => {
    const rates = [0, 1, 2, 3, 4].map((step) =>
      learningRateAt(1, { kind: 'linear-warmup', warmupSteps: 4 }, step),
    );
    expect(rates).toEqual([0.25, 0.5, 0.75, 1, 1]);
  });

  it('follows a cosine from the peak to minRatio after the warm-up, and stays there', () => {
    const schedule = { kind: 'cosine' as const, warmupSteps: 2, totalSteps: 6, minRatio: 0.1 };
    const rates = [0, 1, 2, 3, 4, 5, 9].map((step) => learningRateAt(2, schedule, step));
    const cosine = (p: number) => 2 * (0.1 + (0.9 * (1 + Math.cos(Math.PI * p))) / 2);
    const expected = [1, cosine(0), cosine(0.25), cosine(0.5), cosine(0.75), cosine(1), cosine(1)];
    rates.forEach((rate, index) => {
      expect(rate).toBeCloseTo(expected[index]!, 12);
    });
    expect(rates[1]).toBe(2);
    expect(rates[5]).toBeCloseTo(0.2, 12);
  });

  it('rejects malformed schedules by field', () => {
    expect(() => validateSchedule({ kind: 'step' } as never)).toThrow(
      'schedule.kind must be one of constant, linear-warmup, cosine',
    );
    expect(() => validateSchedule({ kind: 'linear-warmup', warmupSteps: -1 })).toThrow(
      'schedule.warmupSteps',
    );
    expect(() => validateSchedule({ kind: 'cosine', warmupSteps: 5, totalSteps: 5 })).toThrow(
      'schedule.totalSteps',
    );
    expect(() => validateSchedule({ kind: 'cosine', totalSteps: 5, minRatio: 2 })).toThrow(
      'schedule.minRatio',
    );
  });
});
