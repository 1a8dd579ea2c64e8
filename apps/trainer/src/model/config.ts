/** The decoder families this implementation reproduces; both are one code path with two switches. */
export type ModelFamily = 'qwen2' | 'qwen3';

/**
 * A decoder's shape, read from (and written back to) a Hugging Face config.json. Qwen2 and Qwen3 differ only in
 * `attentionBias` (Qwen2: bias on q/k/v) and `qkNorm` (Qwen3: per-head RMSNorm on q and k before RoPE).
 */
export interface ModelConfig {
  family: ModelFamily;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  attentionBias: boolean;
  qkNorm: boolean;
  /**
   * Token shift: a second embedding table (`model.prev_embed_tokens.weight`) looked up with each position's
   * previous token and added to its embedding, so one attention layer can match "the token after this one" and
   * copy. Not part of Qwen2/Qwen3: config.json names it by model_type `taorl_token_shift_qwen3` (or `_qwen2`) and
   * architecture `TaorlTokenShiftQwen3ForCausalLM`, which no other loader mistakes for a standard model.
   */
  tokenShift?: boolean;
}

type Json = Record<string, unknown>;

function field(json: Json, name: string, source: string): unknown {
  if (!(name in json)) throw new Error(`${source}: missing field "${name}"`);
  return json[name];
}

function positiveInt(json: Json, name: string, source: string): number {
  const value = field(json, name, source);
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new Error(`${source}: field "${name}" must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function positiveNumber(json: Json, name: string, source: string, fallback: number): number {
  const value = name in json ? json[name] : fallback;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new Error(`${source}: field "${name}" must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function flag(json: Json, name: string, source: string, fallback: boolean): boolean {
  const value = json[name] ?? fallback;
  if (typeof value !== 'boolean') {
    throw new Error(`${source}: field "${name}" must be true or false, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** transformers' default RoPE base when a config states none (RotaryEmbeddingConfigMixin.default_theta). */
const DEFAULT_ROPE_THETA = 10000;

/** The keys a "default" RoPE parameter object may hold; `type` is the older spelling of `rope_type`. */
const DEFAULT_ROPE_KEYS = new Set(['rope_type', 'type', 'rope_theta', 'partial_rotary_factor']);

/**
 * The RoPE base of a config in either layout: transformers 4 writes `rope_theta` at the top level (and
 * `rope_scaling` for scaled variants), transformers 5 writes `rope_parameters: {rope_type, rope_theta}` and no
 * top-level `rope_theta`. The decoder implements only "default" RoPE over the whole head, so every other rope_type
 * (linear, dynamic, yarn, longrope, llama3, ...), a partial rotary factor, per-layer-type parameters or any
 * unknown key is an error naming the field: ignoring one would compute a different model without a word. Two
 * stated bases that disagree are an error too.
 */
function ropeTheta(c: Json, source: string): number {
  const stated: [string, number][] = [];
  if ('rope_theta' in c && c.rope_theta !== null) {
    stated.push(['rope_theta', positiveNumber(c, 'rope_theta', source, DEFAULT_ROPE_THETA)]);
  }
  const partial = c.partial_rotary_factor;
  if (partial !== undefined && partial !== null && partial !== 1) {
    throw new Error(
      `${source}: partial_rotary_factor ${JSON.stringify(partial)} is not supported (RoPE over the whole head only)`,
    );
  }
  for (const field of ['rope_parameters', 'rope_scaling']) {
    const value = c[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`${source}: field "${field}" must be an object or null, got ${JSON.stringify(value)}`);
    }
    const params = value as Json;
    const typeKey = 'rope_type' in params ? 'rope_type' : 'type';
    const type = params[typeKey] ?? 'default';
    if (type !== 'default') {
      throw new Error(
        `${source}: ${field}.${typeKey} ${JSON.stringify(type)} is not supported (this decoder implements ` +
          'only "default" RoPE)',
      );
    }
    for (const key of Object.keys(params)) {
      if (!DEFAULT_ROPE_KEYS.has(key)) {
        throw new Error(
          `${source}: ${field}.${key} is not supported (a "default" RoPE takes only rope_type and rope_theta)`,
        );
      }
    }
    const inner = params.partial_rotary_factor;
    if (inner !== undefined && inner !== null && inner !== 1) {
      throw new Error(
        `${source}: ${field}.partial_rotary_factor ${JSON.stringify(inner)} is not supported (RoPE over the ` +
          'whole head only)',
      );
    }
    if ('rope_theta' in params && params.rope_theta !== null) {
      const theta = params.rope_theta;
      if (typeof theta !== 'number' || !(theta > 0)) {
        throw new Error(
          `${source}: field "${field}.rope_theta" must be a positive number, got ${JSON.stringify(theta)}`,
        );
      }
      stated.push([`${field}.rope_theta`, theta]);
    }
  }
  const [first, ...others] = stated;
  const conflict = others.find(([, theta]) => theta !== first![1]);
  if (conflict !== undefined) {
    throw new Error(
      `${source}: ${first![0]} ${first![1]} and ${conflict[0]} ${conflict[1]} disagree (state the RoPE base once)`,
    );
  }
  return first?.[1] ?? DEFAULT_ROPE_THETA;
}

/** transformers 5 lists each layer's attention in `layer_types`; the decoder has only full attention. */
function fullAttentionOnly(c: Json, source: string): void {
  const types = c.layer_types;
  if (types === undefined || types === null) return;
  if (!Array.isArray(types)) {
    throw new Error(`${source}: field "layer_types" must be a list, got ${JSON.stringify(types)}`);
  }
  const bad = types.findIndex((type) => type !== 'full_attention');
  if (bad >= 0) {
    throw new Error(
      `${source}: layer_types[${bad}] ${JSON.stringify(types[bad])} is not supported (only "full_attention")`,
    );
  }
}

/**
 * Reads a Hugging Face Qwen2 / Qwen3 config.json object. `source` names the file in error messages. Features this
 * decoder does not implement (RoPE other than "default", sliding-window attention, non-SiLU activations) are
 * rejected rather than silently ignored, since ignoring them would produce a different model. Both the
 * transformers 4 and the transformers 5 layout of the RoPE fields are read (see `ropeTheta`).
 */
export function parseHfConfig(json: unknown, source = 'config.json'): ModelConfig {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`${source}: expected a JSON object`);
  }
  const c = json as Json;
  const modelType = field(c, 'model_type', source);
  const family = FAMILIES.find((f) => modelType === f || modelType === TOKEN_SHIFT_TYPES[f]);
  if (family === undefined) {
    throw new Error(
      `${source}: model_type ${JSON.stringify(modelType)} is not supported (expected one of ` +
        `${FAMILIES.flatMap((f) => [f, TOKEN_SHIFT_TYPES[f]])
          .map((t) => JSON.stringify(t))
          .join(', ')})`,
    );
  }
  const tokenShift = readTokenShift(c, modelType === TOKEN_SHIFT_TYPES[family], source);
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu')
    throw new Error(`${source}: hidden_act ${JSON.stringify(act)} is not supported (only "silu")`);
  if (c.use_sliding_window === true) {
    throw new Error(`${source}: use_sliding_window true is not supported (use false)`);
  }
  fullAttentionOnly(c, source);
  const hiddenSize = positiveInt(c, 'hidden_size', source);
  const numHeads = positiveInt(c, 'num_attention_heads', source);
  const numKvHeads = 'num_key_value_heads' in c ? positiveInt(c, 'num_key_value_heads', source) : numHeads;
  if (numHeads % numKvHeads !== 0) {
    throw new Error(
      `${source}: num_attention_heads (${numHeads}) must be a multiple of num_key_value_heads (${numKvHeads})`,
    );
  }
  // Qwen2 derives head_dim; Qwen3 states it (it may differ from hidden_size / heads, as in Qwen3-0.6B).
  const headDim =
    'head_dim' in c && c.head_dim !== null ? positiveInt(c, 'head_dim', source) : hiddenSize / numHeads;
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) {
    throw new Error(`${source}: head dimension ${headDim} must be an even integer (rotate-half RoPE)`);
  }
  return {
    family,
    vocabSize: positiveInt(c, 'vocab_size', source),
    hiddenSize,
    intermediateSize: positiveInt(c, 'intermediate_size', source),
    numLayers: positiveInt(c, 'num_hidden_layers', source),
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: positiveNumber(c, 'rms_norm_eps', source, 1e-6),
    ropeTheta: ropeTheta(c, source),
    maxPositionEmbeddings: positiveInt(c, 'max_position_embeddings', source),
    tieWordEmbeddings: flag(c, 'tie_word_embeddings', source, false),
    // Qwen2 always has q/k/v bias (its config has no attention_bias field); Qwen3 states it, normally false.
    attentionBias: family === 'qwen2' ? true : flag(c, 'attention_bias', source, false),
    qkNorm: family === 'qwen3',
    ...(tokenShift ? { tokenShift: true } : {}),
  };
}

const FAMILIES: readonly ModelFamily[] = ['qwen2', 'qwen3'];

/**
 * DECISION (docs/models.md): a token-shift decoder is saved under a model_type and an architecture of its own,
 * which transformers, vLLM and SGLang refuse to load, because under Qwen3's names they would load it (noting one
 * unexpected tensor) and compute a different model.
 */
const TOKEN_SHIFT_TYPES: Record<ModelFamily, string> = {
  qwen2: 'taorl_token_shift_qwen2',
  qwen3: 'taorl_token_shift_qwen3',
};
const TOKEN_SHIFT_ARCHITECTURES: Record<ModelFamily, string> = {
  qwen2: 'TaorlTokenShiftQwen2ForCausalLM',
  qwen3: 'TaorlTokenShiftQwen3ForCausalLM',
};

/**
 * Whether a config describes a token-shift decoder: its own model_type, or (folders taorl wrote before the
 * token-shift model types) model_type qwen2 / qwen3 with `token_shift: true`, still read so that earlier runs
 * load and resume; saving such a policy again writes the token-shift model_type.
 */
function readTokenShift(c: Json, tokenShiftType: boolean, source: string): boolean {
  const legacy = flag(c, 'token_shift', source, tokenShiftType);
  if (tokenShiftType && !legacy) {
    throw new Error(`${source}: model_type ${JSON.stringify(c.model_type)} contradicts token_shift false`);
  }
  return legacy;
}

/**
 * The config.json written next to saved weights, in the transformers 4 layout (top-level rope_theta), which
 * transformers 5, vLLM and SGLang read too. A token-shift decoder gets its own model_type and architecture, so those
 * loaders refuse it instead of computing a different model.
 */
export function toHfConfig(config: ModelConfig): Json {
  const standard = config.family === 'qwen2' ? 'Qwen2ForCausalLM' : 'Qwen3ForCausalLM';
  const common: Json = {
    architectures: [config.tokenShift ? TOKEN_SHIFT_ARCHITECTURES[config.family] : standard],
    model_type: config.tokenShift ? TOKEN_SHIFT_TYPES[config.family] : config.family,
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    hidden_act: 'silu',
    max_position_embeddings: config.maxPositionEmbeddings,
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    rope_scaling: null,
    tie_word_embeddings: config.tieWordEmbeddings,
    use_sliding_window: false,
    torch_dtype: 'float32',
  };
  return config.family === 'qwen3'
    ? { ...common, head_dim: config.headDim, attention_bias: config.attentionBias }
    : common;
}

/** Options of the embedded default model; vocabSize comes from the tokenizer it is paired with. */
export interface TinyModelOptions {
  vocabSize: number;
  maxPositionEmbeddings?: number;
  /** Add the token-shift embedding (see `ModelConfig.tokenShift`). Default false. */
  tokenShift?: boolean;
}

/**
 * The embedded default: a Qwen3-shaped decoder of about half a million parameters (d 128, 2 layers, 4 query heads
 * over 2 KV heads of width 32, SwiGLU width 384, tied head). DECISION (docs/models.md): the embedded-task
 * feasibility run found d128 L2 the largest model that learns the task in minutes on one core, and RoPE gives it
 * the relative positions. Token shift (a previous-token embedding) is an option because copying digits is slow to
 * learn without it (docs/experiments/token-shift.md).
 */
export function tinyQwen3Config(options: TinyModelOptions): ModelConfig {
  return {
    family: 'qwen3',
    vocabSize: options.vocabSize,
    hiddenSize: 128,
    intermediateSize: 384,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 32,
    rmsNormEps: 1e-6,
    ropeTheta: 10000,
    maxPositionEmbeddings: options.maxPositionEmbeddings ?? 512,
    tieWordEmbeddings: true,
    attentionBias: false,
    qkNorm: true,
    ...(options.tokenShift === true ? { tokenShift: true } : {}),
  };
}
