import { describe, expect, it } from 'vitest';
import { parseHfConfig, tinyQwen3Config, toHfConfig } from '../src/config.js';
import { weightSpecs } from '../src/weight-specs.js';

// Shaped like the config.json files of Qwen3-0.6B and Qwen2.5-0.5B (fields abridged; extra fields such as
// sliding_window or max_window_layers are ignored by the parser, as by transformers when sliding is off).
const qwen3Like = {
  architectures: ['Qwen3ForCausalLM'],
  model_type: 'qwen3',
  hidden_size: 1024,
  intermediate_size: 3072,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  hidden_act: 'silu',
  max_position_embeddings: 40960,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  rope_scaling: null,
  attention_bias: false,
  tie_word_embeddings: true,
  use_sliding_window: false,
  sliding_window: null,
  max_window_layers: 28,
  vocab_size: 151936,
  torch_dtype: 'bfloat16',
};
const qwen2Like = {
  architectures: ['Qwen2ForCausalLM'],
  model_type: 'qwen2',
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  hidden_act: 'silu',
  max_position_embeddings: 32768,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  sliding_window: 32768,
  use_sliding_window: false,
  tie_word_embeddings: true,
  vocab_size: 151936,
};

describe('Hugging Face configs', () => {
  it('reads a Qwen3 config: explicit head_dim, q/k norm, no bias', () => {
    const config = parseHfConfig(qwen3Like);
    expect(config).toMatchObject({
      family: 'qwen3',
      headDim: 128,
      numHeads: 16,
      numKvHeads: 8,
      qkNorm: true,
    });
    expect(config.attentionBias).toBe(false);
    const specs = new Map(weightSpecs(config).map((s) => [s.name, s.shape]));
    expect(specs.get('model.layers.0.self_attn.q_proj.weight')).toEqual([2048, 1024]);
    expect(specs.get('model.layers.0.self_attn.k_proj.weight')).toEqual([1024, 1024]);
    expect(specs.get('model.layers.27.self_attn.o_proj.weight')).toEqual([1024, 2048]);
    expect(specs.get('model.layers.0.self_attn.q_norm.weight')).toEqual([128]);
    expect(specs.has('model.layers.0.self_attn.q_proj.bias')).toBe(false);
    expect(specs.has('lm_head.weight')).toBe(false);
    expect(specs.size).toBe(1 + 28 * 11 + 1);
  });

  it('reads a Qwen2 config: head_dim from hidden / heads, q/k/v bias, no q/k norm', () => {
    const config = parseHfConfig(qwen2Like);
    expect(config).toMatchObject({ family: 'qwen2', headDim: 64, attentionBias: true, qkNorm: false });
    const specs = new Map(weightSpecs(config).map((s) => [s.name, s.shape]));
    expect(specs.get('model.layers.0.self_attn.k_proj.weight')).toEqual([128, 896]);
    expect(specs.get('model.layers.0.self_attn.k_proj.bias')).toEqual([128]);
    expect(specs.has('model.layers.0.self_attn.q_norm.weight')).toBe(false);
    expect(specs.size).toBe(1 + 24 * 12 + 1);
  });

  it('round-trips through the config.json it writes', () => {
    for (const config of [
      parseHfConfig(qwen3Like),
      parseHfConfig(qwen2Like),
      tinyQwen3Config({ vocabSize: 259 }),
      tinyQwen3Config({ vocabSize: 259, tokenShift: true }),
    ]) {
      expect(parseHfConfig(JSON.parse(JSON.stringify(toHfConfig(config))))).toEqual(config);
    }
  });

  it('reads the RoPE base from either layout: rope_theta (transformers 4) or rope_parameters (transformers 5)', () => {
    const { rope_theta: _theta, rope_scaling: _scaling, ...withoutRope } = qwen3Like;
    const v5 = { ...withoutRope, rope_parameters: { rope_theta: 1_000_000, rope_type: 'default' } };
    expect(parseHfConfig(v5).ropeTheta).toBe(1_000_000);
    expect(parseHfConfig({ ...v5, rope_theta: 1_000_000 }).ropeTheta).toBe(1_000_000);
    // transformers 4 also accepts a default-type rope_scaling, with the older spelling "type".
    expect(parseHfConfig({ ...qwen3Like, rope_scaling: { type: 'default' } }).ropeTheta).toBe(1_000_000);
    expect(
      parseHfConfig({ ...withoutRope, rope_scaling: { rope_type: 'default', rope_theta: 5e5 } }).ropeTheta,
    ).toBe(5e5);
    // No base stated anywhere: transformers' default.
    expect(parseHfConfig(withoutRope).ropeTheta).toBe(10000);
    expect(parseHfConfig({ ...v5, layer_types: Array(28).fill('full_attention') }).ropeTheta).toBe(1_000_000);
  });

  it('refuses every RoPE variant but "default", naming the field', () => {
    const { rope_theta: _theta, rope_scaling: _scaling, ...withoutRope } = qwen3Like;
    for (const type of ['linear', 'dynamic', 'yarn', 'longrope', 'llama3', 'proportional']) {
      expect(() =>
        parseHfConfig(
          { ...withoutRope, rope_parameters: { rope_theta: 1e6, rope_type: type, factor: 4 } },
          'm/config.json',
        ),
      ).toThrow(`m/config.json: rope_parameters.rope_type "${type}" is not supported`);
      expect(() => parseHfConfig({ ...qwen3Like, rope_scaling: { rope_type: type, factor: 4 } })).toThrow(
        `rope_scaling.rope_type "${type}" is not supported`,
      );
      expect(() => parseHfConfig({ ...qwen3Like, rope_scaling: { type, factor: 4 } })).toThrow(
        `rope_scaling.type "${type}" is not supported`,
      );
    }
    const v5 = (params: Record<string, unknown>) => ({ ...withoutRope, rope_parameters: params });
    const refused: [unknown, string][] = [
      [v5({ rope_theta: 1e6, rope_type: 'default', factor: 2 }), 'rope_parameters.factor is not supported'],
      [v5({ rope_type: 'default', type: 'yarn' }), 'rope_parameters.type "yarn" is not supported'],
      [
        v5({ full_attention: { rope_theta: 1e6, rope_type: 'default' } }),
        'rope_parameters.full_attention is not supported',
      ],
      [
        v5({ rope_theta: 1e6, rope_type: 'default', partial_rotary_factor: 0.5 }),
        'rope_parameters.partial_rotary_factor 0.5 is not supported',
      ],
      [{ ...qwen3Like, partial_rotary_factor: 0.5 }, 'partial_rotary_factor 0.5 is not supported'],
      [v5({ rope_theta: 'big' }), 'field "rope_parameters.rope_theta" must be a positive number'],
      [{ ...qwen3Like, rope_parameters: 'yarn' }, 'field "rope_parameters" must be an object or null'],
      [
        { ...v5({ rope_theta: 1e6 }), rope_theta: 10000 },
        'rope_theta 10000 and rope_parameters.rope_theta 1000000 disagree',
      ],
      [
        { ...qwen3Like, layer_types: ['full_attention', 'sliding_attention'] },
        'layer_types[1] "sliding_attention" is not supported',
      ],
    ];
    for (const [json, message] of refused) expect(() => parseHfConfig(json)).toThrow(message);
  });

  it('reads token-shift model types, and the token_shift flag of folders saved before them', () => {
    const shifted = parseHfConfig({ ...qwen3Like, model_type: 'taorl_token_shift_qwen3' });
    expect(shifted).toMatchObject({ family: 'qwen3', tokenShift: true, qkNorm: true });
    expect(parseHfConfig({ ...qwen2Like, model_type: 'taorl_token_shift_qwen2' })).toMatchObject({
      family: 'qwen2',
      tokenShift: true,
      attentionBias: true,
    });
    expect(parseHfConfig({ ...qwen3Like, token_shift: true }).tokenShift).toBe(true);
    expect(parseHfConfig(qwen3Like).tokenShift).toBeUndefined();
    expect(() =>
      parseHfConfig({ ...qwen3Like, model_type: 'taorl_token_shift_qwen3', token_shift: false }),
    ).toThrow('model_type "taorl_token_shift_qwen3" contradicts token_shift false');
    const written = toHfConfig(tinyQwen3Config({ vocabSize: 259, tokenShift: true }));
    expect(written).toMatchObject({
      model_type: 'taorl_token_shift_qwen3',
      architectures: ['TaorlTokenShiftQwen3ForCausalLM'],
    });
    expect(written).not.toHaveProperty('token_shift');
  });

  it('rejects what this decoder does not implement, naming the field and the file', () => {
    expect(() => parseHfConfig({ ...qwen2Like, use_sliding_window: true }, 'm/config.json')).toThrow(
      /m\/config\.json: use_sliding_window true is not supported/,
    );
    expect(() => parseHfConfig({ ...qwen2Like, hidden_act: 'gelu' })).toThrow(
      /hidden_act "gelu" is not supported/,
    );
    expect(() => parseHfConfig({ ...qwen3Like, head_dim: 7 })).toThrow(
      /head dimension 7 must be an even integer/,
    );
    expect(() => parseHfConfig({ ...qwen3Like, tie_word_embeddings: 'yes' })).toThrow(
      /"tie_word_embeddings" must be true or false/,
    );
    expect(() => parseHfConfig([])).toThrow(/expected a JSON object/);
  });
});
