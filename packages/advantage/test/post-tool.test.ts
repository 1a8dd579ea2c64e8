import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import { postToolMask } from '../src/index';
import { randomTrajectory } from './random';
import { referenceInPostTool } from './reference';

// Response tokens:  0 1 | 2 3 4 | 5 6 7 | 8 9 | 10 11 12
// lossMask:         1 1 | 0 0 0 | 1 0 1 | 0 0 | 1  1  1
//                       obs #0 ok         obs #1 error, then #2 ok at [13, 14)
const trajectory = {
  lossMask: Uint8Array.from([1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1]),
  toolCalls: [
    { status: 'ok', startToken: 2, endToken: 5 },
    { status: 'error', startToken: 8, endToken: 10 },
    { status: 'ok', startToken: 13, endToken: 14 },
  ],
};

describe('postToolMask (M_post)', () => {
  it('marks the policy tokens from a successful observation to the next call, skipping failed calls', () => {
    expect(Array.from(postToolMask(trajectory))).toEqual([0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1]);
  });

  it('with firstTokens keeps the first k policy tokens of each window', () => {
    expect(Array.from(postToolMask(trajectory, { window: { firstTokens: 1 } }))).toEqual([
      0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,
    ]);
    expect(postToolMask(trajectory, { window: { firstTokens: 50 } })).toEqual(postToolMask(trajectory));
  });

  it('is empty without successful calls and handles an observation at the very end', () => {
    expect(postToolMask({ lossMask: Uint8Array.of(1, 1), toolCalls: [] })).toEqual(new Uint8Array(2));
    const atEnd = {
      lossMask: Uint8Array.of(1, 0),
      toolCalls: [{ status: 'ok', startToken: 1, endToken: 2 }],
    };
    expect(postToolMask(atEnd)).toEqual(new Uint8Array(2));
  });

  it('agrees with a per-token reference on random trajectories', () => {
    const random = seededRandom(17);
    for (let trial = 0; trial < 300; trial++) {
      const t = randomTrajectory(random, 0, 0);
      const k = trial % 3 === 0 ? undefined : 1 + Math.floor(random() * 5);
      const mask = postToolMask(t, k === undefined ? {} : { window: { firstTokens: k } });
      expect(Array.from(mask)).toEqual(
        Array.from(t.lossMask, (_, p) => (referenceInPostTool(t, p, k) ? 1 : 0)),
      );
    }
  });

  it('rejects malformed spans and windows with the offending call', () => {
    const lossMask = new Uint8Array(6);
    const calls = (startToken: number, endToken: number) => [
      { status: 'ok', startToken: 0, endToken: 2 },
      { status: 'ok', startToken, endToken },
    ];
    for (const [s, e] of [
      [1, 3],
      [4, 3],
      [4, 7],
      [2.5, 3],
    ]) {
      expect(() => postToolMask({ lossMask, toolCalls: calls(s!, e!) })).toThrow(
        `trajectory 0: toolCalls[1] has observation span [${s}, ${e})`,
      );
    }
    expect(() => postToolMask({ lossMask, toolCalls: [] }, { window: { firstTokens: 0 } })).toThrow(
      /option 'window'/,
    );
    expect(() => postToolMask({ lossMask, toolCalls: [] }, { window: 'turn' as never })).toThrow(
      /option 'window'/,
    );
  });
});
