import { describe, expect, it } from 'vitest';
import { type ModelConfig, tinyQwen3Config } from '../src/config.js';
import { weightCount, weightSpecs } from '../src/weight-specs.js';

describe('weightCount', () => {
  it('counts exactly the tensors weightSpecs lists, for every switch of the architecture', () => {
    const base = tinyQwen3Config({ vocabSize: 32 });
    const variants: ModelConfig[] = [
      base,
      { ...base, numLayers: 5 },
      { ...base, family: 'qwen2', attentionBias: true, qkNorm: false, tieWordEmbeddings: false },
      { ...base, tokenShift: true, tieWordEmbeddings: false },
    ];
    for (const config of variants) expect(weightCount(config)).toBe(weightSpecs(config).length);
  });
});
