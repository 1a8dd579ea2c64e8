import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import { chooseToken } from '../src/sampler.js';

const logits = Float32Array.from([0.5, 2.0, -1.0, 1.5, 0.0, 1.0]);

function softmax(values: number[]): number[] {
  const max = Math.max(...values);
  const exps = values.map((v) => Math.exp(v - max));
  const z = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / z);
}

function frequencies(settings: { temperature: number; topK: number; topP: number }, n: number): number[] {
  const random = seededRandom(1);
  const counts = new Array<number>(logits.length).fill(0);
  for (let i = 0; i < n; i++) counts[chooseToken(logits, 0, logits.length, settings, random).id]! += 1;
  return counts.map((c) => c / n);
}

describe('chooseToken', () => {
  it('records log p and the entropy of softmax(logits / T) before truncation', () => {
    const t = 0.7;
    const p = softmax(Array.from(logits, (v) => v / t));
    const choice = chooseToken(
      logits,
      0,
      logits.length,
      { temperature: t, topK: 2, topP: 0.9 },
      seededRandom(3),
    );
    expect(choice.logProb).toBeCloseTo(Math.log(p[choice.id]!), 12);
    expect(choice.entropy).toBeCloseTo(-p.reduce((a, q) => a + q * Math.log(q), 0), 12);
  });

  it('greedy takes the argmax and records temperature 1', () => {
    const choice = chooseToken(
      logits,
      0,
      logits.length,
      { temperature: 0, topK: 0, topP: 1 },
      seededRandom(3),
    );
    expect(choice.id).toBe(1);
    expect(choice.logProb).toBeCloseTo(Math.log(softmax(Array.from(logits))[1]!), 12);
  });

  it('samples the tempered distribution (frequencies within 4 standard errors)', () => {
    const n = 20000;
    const p = softmax(Array.from(logits, (v) => v / 1.5));
    const f = frequencies({ temperature: 1.5, topK: 0, topP: 1 }, n);
    for (const [i, q] of p.entries())
      expect(Math.abs(f[i]! - q)).toBeLessThan(4 * Math.sqrt((q * (1 - q)) / n));
  });

  it('top-k keeps the k best, renormalised; top-p keeps the smallest prefix reaching p', () => {
    const n = 20000;
    const p = softmax(Array.from(logits));
    const topTwo = frequencies({ temperature: 1, topK: 2, topP: 1 }, n);
    const z2 = p[1]! + p[3]!;
    expect(topTwo[1]!).toBeCloseTo(p[1]! / z2, 1);
    expect(topTwo[3]!).toBeCloseTo(p[3]! / z2, 1);
    expect(topTwo[0]! + topTwo[2]! + topTwo[4]! + topTwo[5]!).toBe(0);
    // Sorted probabilities: ids 1, 3, 5, 0, 4, 2; the first two hold < 0.75 of the mass, the first three more.
    expect(p[1]! + p[3]!).toBeLessThan(0.75);
    expect(p[1]! + p[3]! + p[5]!).toBeGreaterThan(0.75);
    const nucleus = frequencies({ temperature: 1, topK: 0, topP: 0.75 }, n);
    expect(nucleus[0]! + nucleus[2]! + nucleus[4]!).toBe(0);
    const z3 = p[1]! + p[3]! + p[5]!;
    for (const id of [1, 3, 5]) expect(Math.abs(nucleus[id]! - p[id]! / z3)).toBeLessThan(0.02);
  });
});

describe('chooseToken with ids the tokenizer cannot decode (sampleableIds)', () => {
  // The two largest logits belong to ids 6 and 7, past a tokenizer of 6 ids (a model's padding rows).
  const padded = Float32Array.from([0.5, 2.0, -1.0, 1.5, 0.0, 1.0, 4.0, 3.5]);
  const sampleableIds = 6;
  const full = softmax(Array.from(padded));

  it('greedy takes the best decodable id; log-prob and entropy still describe all ids', () => {
    const choice = chooseToken(
      padded,
      0,
      padded.length,
      { temperature: 0, topK: 0, topP: 1, sampleableIds },
      seededRandom(1),
    );
    expect(choice.id).toBe(1);
    expect(choice.logProb).toBeCloseTo(Math.log(full[1]!), 12);
    expect(choice.entropy).toBeCloseTo(-full.reduce((a, q) => a + q * Math.log(q), 0), 12);
  });

  it('samples only decodable ids, in proportion to their probabilities; top log-probs list only them', () => {
    for (const truncation of [
      { topK: 0, topP: 1 },
      { topK: 7, topP: 1 },
      { topK: 0, topP: 0.999 },
    ]) {
      const n = 20000;
      const random = seededRandom(2);
      const counts = new Array<number>(padded.length).fill(0);
      for (let i = 0; i < n; i++) {
        const choice = chooseToken(
          padded,
          0,
          padded.length,
          { temperature: 1, ...truncation, topLogprobs: 8, sampleableIds },
          random,
        );
        counts[choice.id]! += 1;
        expect(choice.top!.ids).toEqual([1, 3, 5, 0, 4, 2]);
        expect(choice.logProb).toBeCloseTo(Math.log(full[choice.id]!), 12);
      }
      expect(counts[6]! + counts[7]!).toBe(0);
      const z = full.slice(0, sampleableIds).reduce((a, b) => a + b, 0);
      for (let id = 0; id < sampleableIds; id++) {
        const q = full[id]! / z;
        expect(Math.abs(counts[id]! / n - q)).toBeLessThan(4 * Math.sqrt((q * (1 - q)) / n) + 1e-3);
      }
    }
  });
});
