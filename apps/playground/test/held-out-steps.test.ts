import { describe, expect, it } from 'vitest';
import { heldOutSteps } from '../src/rl/demo-run';

describe('heldOutSteps', () => {
  it('evaluates before training, every few steps and after the last', () => {
    expect(heldOutSteps(12, 5)).toEqual([0, 5, 10, 12]);
    expect(heldOutSteps(10, 5)).toEqual([0, 5, 10]);
    expect(heldOutSteps(3, 5)).toEqual([0, 3]);
    expect(heldOutSteps(2, 1)).toEqual([0, 1, 2]);
  });

  it('names the field of a step count that is not a whole number of 1 or more', () => {
    expect(() => heldOutSteps(3, 0)).toThrow('heldOutEvery: 0 is not a whole number of 1 or more');
    expect(() => heldOutSteps(3, 1.5)).toThrow('heldOutEvery: 1.5');
  });
});
