import { checkFullAttention, readRopeTheta } from './rope-config.js';

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

/**
 * Reads a Hugging Face Qwen2 / Qwen3 config.json object. `source` names the file in error messages. Features this
 * decoder does not implement (RoPE other than "default", sliding-window attention, non-SiLU activations) are
 * rejected rather than silently ignored, since ignoring them would produce a different model. Both the
 * transformers 4 and the transformers 5 layout of the RoPE fields are read (rope-config.ts).
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
  checkFullAttention(c, source);
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
    ropeTheta: readRopeTheta(c, source),
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
export function toHfConfig(config: ModelConfig): Record<string, unknown> {
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
 * learn without it (docs/journal.md, the token-shift experiment).
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
