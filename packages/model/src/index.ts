// The portable entry: the Qwen2 / Qwen3 decoder on TensorFlow.js as a trainable policy, its sampler, Hugging Face
// config.json and safetensors bytes, and its GRPO update (the PolicyUpdate that @taorl/rl's step takes). No Node
// built-in, so it bundles for a browser; Hugging Face folders on disk are '@taorl/model/node'.

export {
  type ModelConfig,
  type ModelFamily,
  parseHfConfig,
  type TinyModelOptions,
  tinyQwen3Config,
  toHfConfig,
} from './config';
export { type GrpoUpdateOptions, grpoUpdate } from './grpo-update';
export { padRows, type RowMajorArray } from './padded-rows';
export { paddedVocabTokenizer } from './padded-vocab-tokenizer';
export type { Policy } from './policy';
export {
  encodeSafetensors,
  type NamedTensor,
  type ParsedSafetensors,
  parseSafetensors,
  type TensorLocation,
} from './safetensors';
export { type ShardGradient, shardGradient, type WeightedTokenBatch } from './shard-gradient';
export {
  type CheckpointStore,
  createTinyPolicy,
  initPolicy,
  TransformerPolicy,
} from './transformer-policy';
export { type PaddedBatch, paddedBatch } from './update-batch';
export { type Checkpoint, type SaveOptions, type WeightSpec, weightCount, weightSpecs } from './weight-specs';
