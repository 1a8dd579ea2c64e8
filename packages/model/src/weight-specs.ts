import type { ModelConfig } from './config.js';

/** A tensor the decoder needs, by its Hugging Face name and shape (linear weights are [out, in]). */
export interface WeightSpec {
  name: string;
  shape: number[];
}

/** The tensors of decoder layer `i`. */
function layerSpecs(config: ModelConfig, i: number): WeightSpec[] {
  const { hiddenSize: d, headDim, numHeads, numKvHeads, intermediateSize } = config;
  const q = numHeads * headDim;
  const kv = numKvHeads * headDim;
  const p = `model.layers.${i}`;
  const specs: WeightSpec[] = [
    { name: `${p}.input_layernorm.weight`, shape: [d] },
    { name: `${p}.self_attn.q_proj.weight`, shape: [q, d] },
    { name: `${p}.self_attn.k_proj.weight`, shape: [kv, d] },
    { name: `${p}.self_attn.v_proj.weight`, shape: [kv, d] },
  ];
  if (config.attentionBias) {
    specs.push({ name: `${p}.self_attn.q_proj.bias`, shape: [q] });
    specs.push({ name: `${p}.self_attn.k_proj.bias`, shape: [kv] });
    specs.push({ name: `${p}.self_attn.v_proj.bias`, shape: [kv] });
  }
  specs.push({ name: `${p}.self_attn.o_proj.weight`, shape: [d, q] });
  if (config.qkNorm) {
    specs.push({ name: `${p}.self_attn.q_norm.weight`, shape: [headDim] });
    specs.push({ name: `${p}.self_attn.k_norm.weight`, shape: [headDim] });
  }
  specs.push({ name: `${p}.post_attention_layernorm.weight`, shape: [d] });
  specs.push({ name: `${p}.mlp.gate_proj.weight`, shape: [intermediateSize, d] });
  specs.push({ name: `${p}.mlp.up_proj.weight`, shape: [intermediateSize, d] });
  specs.push({ name: `${p}.mlp.down_proj.weight`, shape: [d, intermediateSize] });
  return specs;
}

/** The tensors outside the layers: embeddings first, then the final norm and the head. */
function outerSpecs(config: ModelConfig): { first: WeightSpec[]; last: WeightSpec[] } {
  const { hiddenSize: d, vocabSize } = config;
  const first: WeightSpec[] = [{ name: 'model.embed_tokens.weight', shape: [vocabSize, d] }];
  if (config.tokenShift) first.push({ name: 'model.prev_embed_tokens.weight', shape: [vocabSize, d] });
  const last: WeightSpec[] = [{ name: 'model.norm.weight', shape: [d] }];
  if (!config.tieWordEmbeddings) last.push({ name: 'lm_head.weight', shape: [vocabSize, d] });
  return { first, last };
}

/** Every tensor of a Qwen2 / Qwen3 causal LM with this config, in the order transformers lists them. */
export function weightSpecs(config: ModelConfig): WeightSpec[] {
  const { first, last } = outerSpecs(config);
  const layers = Array.from({ length: config.numLayers }, (_, i) => layerSpecs(config, i));
  return [...first, ...layers.flat(), ...last];
}

/** How many tensors `weightSpecs(config)` lists, computed without listing them (a config may claim millions). */
export function weightCount(config: ModelConfig): number {
  const { first, last } = outerSpecs(config);
  return first.length + config.numLayers * layerSpecs(config, 0).length + last.length;
}

/** A checkpoint in memory: its config and every tensor of `weightSpecs(config)` as float32, HF layout. */
export interface Checkpoint {
  config: ModelConfig;
  tensors: Map<string, Float32Array>;
  /**
   * The folder's tokenizer, chat template and generation files (`COMPANION_FILES`) as loaded, byte for byte, so that
   * a save writes what loading the saved folder needs; absent or empty for a model without them (the tiny model).
   */
  files?: ReadonlyMap<string, Uint8Array>;
}

/** Options of a checkpoint save (`CheckpointStore.save`, `saveCheckpoint`). */
export interface SaveOptions {
  /** Split into model-0000i-of-0000n.safetensors + index above this many bytes. Default 4 GiB. */
  maxShardBytes?: number;
}
