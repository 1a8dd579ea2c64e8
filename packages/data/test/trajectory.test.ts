import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DataError,
  groupTrajectories,
  parseTrajectory,
  serializeTrajectory,
  trainingSequence,
  validateTrajectory,
} from '../src/index';
import { readTrajectories, writeTrajectories } from '../src/node';
import { sampleTrajectory } from './fixtures';

describe('ResponseBuilder', () => {
  it('places observations with lossMask 0 and records their token spans', () => {
    const t = sampleTrajectory();
    expect(Array.from(t.responseIds)).toEqual([10, 11, 12, 20, 21, 13, 14, 22, 15]);
    expect(Array.from(t.lossMask)).toEqual([1, 1, 1, 0, 0, 1, 1, 0, 1]);
    expect(t.toolCalls.map((c) => [c.startToken, c.endToken, c.status])).toEqual([
      [3, 5, 'error'],
      [7, 8, 'ok'],
    ]);
    expect(Array.from(t.oldLogProbs)).toEqual([
      -0.5,
      -1.25,
      -0.125,
      0,
      0,
      Math.fround(-0.1),
      Math.fround(-1 / 3),
      0,
      -2,
    ]);
  });

  it('trainingSequence concatenates prompt and response ids without touching text', () => {
    const t = sampleTrajectory();
    const seq = trainingSequence(t);
    expect(seq.promptLength).toBe(3);
    expect(Array.from(seq.inputIds)).toEqual([...t.promptIds, ...t.responseIds]);
    expect(Array.from(seq.lossMask)).toEqual([0, 0, 0, ...t.lossMask]);
    expect(Array.from(seq.entropies.subarray(3))).toEqual(Array.from(t.entropies));
  });
});

describe('trajectory JSONL', () => {
  it('round-trips exactly, typed arrays, unicode and extra fields included', () => {
    const original = {
      ...sampleTrajectory(),
      entropies: Float32Array.from([0, -0, 1e-45, 3.4e38, 0.1, 5, 6, 7, 8]),
    };
    const extra = { ...original, question: 'what is 2+2?' };
    const line = serializeTrajectory(extra);
    expect(line).not.toContain('\n');
    const parsed = parseTrajectory(line);
    expect(parsed).toEqual(extra);
    expect(parsed.entropies).toBeInstanceOf(Float32Array);
    expect(Object.is(parsed.entropies[1], -0)).toBe(true);
    expect(serializeTrajectory(parsed)).toBe(line);
  });

  it('round-trips a response of two million tokens (columns of megabytes)', () => {
    const length = 2_000_000;
    const long = sampleTrajectory({
      responseIds: new Int32Array(length).map((_, i) => i % 251),
      lossMask: new Uint8Array(length).fill(1),
      oldLogProbs: new Float32Array(length).fill(-0.5),
      entropies: new Float32Array(length).fill(1.25),
      toolCalls: [],
    });
    const line = serializeTrajectory(long);
    const parsed = parseTrajectory(line);
    // Typed arrays of millions are compared through their serialization (toEqual walks them one by one).
    expect(parsed.responseIds.length).toBe(length);
    expect([parsed.responseIds[length - 1], parsed.entropies[length - 1]]).toEqual([
      (length - 1) % 251,
      1.25,
    ]);
    expect(serializeTrajectory(parsed)).toBe(line);
  });

  it('rejects a column that is not base64, or not whole elements, naming the field', () => {
    const record = JSON.parse(serializeTrajectory(sampleTrajectory()));
    // Node's Buffer decoded this leniently to one Int32 (skipping the bad characters); atob refuses it.
    const notBase64 = JSON.stringify({ ...record, responseIds: 'AAAAAA!!' });
    expect(() => parseTrajectory(notBase64, { location: { file: 't.jsonl', line: 4 } })).toThrow(
      /t\.jsonl:4.*responseIds.*is not base64 text/,
    );
    const oddBytes = JSON.stringify({ ...record, promptIds: btoa('\u0001\u0002\u0003') });
    expect(() => parseTrajectory(oddBytes)).toThrow(/promptIds.*byte length is not a multiple of 4/);
  });

  it('writes and streams a file back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-data-'));
    const path = join(dir, 'traj.jsonl');
    const items = [sampleTrajectory(), sampleTrajectory({ groupId: 'q-8', reward: 0, correct: false })];
    expect(await writeTrajectories(path, items)).toBe(2);
    const back = [];
    for await (const t of readTrajectories(path)) back.push(t);
    expect(back).toEqual(items);
  });

  it('rejects when the file cannot be written', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'taorl-data-')), 'missing', 'traj.jsonl');
    await expect(writeTrajectories(path, [sampleTrajectory()])).rejects.toThrow('ENOENT');
  });

  it('names the file and line of a bad record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-data-'));
    const path = join(dir, 'bad.jsonl');
    const good = serializeTrajectory(sampleTrajectory());
    const bad = JSON.parse(good);
    bad.lossMask = Buffer.from([1, 1]).toString('base64');
    writeFileSync(path, `${good}\n\n${JSON.stringify(bad)}\n`);
    const read = async () => {
      for await (const _ of readTrajectories(path)) {
        // consume
      }
    };
    await expect(read()).rejects.toThrow(`${path}:3: invalid trajectory: "lossMask" has 2 entries`);
    writeFileSync(path, `${good}\n{oops\n`);
    await expect(read()).rejects.toThrow(`${path}:2: not valid JSON`);
  });
});

describe('validateTrajectory', () => {
  it('accepts a well-formed trajectory', () => {
    const t = sampleTrajectory();
    expect(validateTrajectory(t, { vocabSize: 100 })).toBe(t);
  });

  it('lists every problem with its field', () => {
    const t = sampleTrajectory();
    const broken = {
      ...t,
      groupId: '',
      lossMask: Uint8Array.from([1, 1, 1, 1, 0, 1, 1, 0, 2]),
      oldLogProbs: [0],
      toolCalls: [
        { ...t.toolCalls[0], status: 'boom' },
        { ...t.toolCalls[1], endToken: 99 },
      ],
      reward: Number.NaN,
    };
    let error: unknown;
    try {
      validateTrajectory(broken, { location: { file: 'x.jsonl', line: 4 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DataError);
    const message = (error as Error).message;
    expect(message.startsWith('x.jsonl:4: invalid trajectory')).toBe(true);
    for (const fragment of [
      '"groupId" must be a non-empty string',
      '"oldLogProbs" must be a Float32Array, got a plain array',
      '"lossMask[8]" is 2',
      '"toolCalls[0].status" is "boom"',
      '"toolCalls[0]" observation token 3 has lossMask 1',
      '"toolCalls[1]" spans tokens [7, 99)',
      '"reward" must be a finite number',
    ]) {
      expect(message).toContain(fragment);
    }
  });

  it('rejects token ids outside the vocabulary', () => {
    expect(() => validateTrajectory(sampleTrajectory(), { vocabSize: 16 })).toThrow(
      '"responseIds[3]" is 20, outside the vocabulary [0, 16)',
    );
  });
});

describe('groupTrajectories', () => {
  it('groups by groupId in first-seen order', () => {
    const a1 = sampleTrajectory({ groupId: 'a' });
    const b1 = sampleTrajectory({ groupId: 'b' });
    const a2 = sampleTrajectory({ groupId: 'a', reward: 0 });
    const groups = groupTrajectories([a1, b1, a2]);
    expect(groups.map((g) => g.groupId)).toEqual(['a', 'b']);
    expect(groups[0]?.trajectories).toEqual([a1, a2]);
  });
});
