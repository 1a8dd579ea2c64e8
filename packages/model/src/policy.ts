import type { RolloutPolicy } from '@taorl/rollout';
import type * as tf from '@tensorflow/tfjs';

// The sampling contract (how a rollout samples, what it gets back) is @taorl/rollout's; this is the training side.

/**
 * A language-model policy as the rollout engine and the SFT / RL loops use it.
 *
 * Multi-turn rollouts continue after a tool observation by calling `generate` again with the full prefix
 * (prompt + generated + observation ids): every call starts from a prefix, so no cache state survives between
 * calls and a continuation is exactly a fresh generation from that prefix.
 */
export interface Policy extends RolloutPolicy {
  /**
   * Next-token logits for training, differentiable with respect to `trainableVariables()`: tokens [batch, seq]
   * int32 -> logits [batch, seq, vocab] float32, where logits[b, t] predicts tokens[b, t + 1]. Causal, so
   * right-padding does not change the logits of the real tokens. Same numerics as `generate`.
   */
  logits(tokens: tf.Tensor2D): tf.Tensor3D;
  /** The weights an optimizer updates. */
  trainableVariables(): tf.Variable[];
  /**
   * Writes a Hugging Face folder (config.json + model.safetensors, and the tokenizer files of the folder the model
   * was loaded from) that `loadPolicy`, `model.source: hf`, vLLM or SGLang can load (`TransformerPolicy`: through
   * its `CheckpointStore`).
   */
  save(dir: string): Promise<void>;
  /** Frees the weights. */
  dispose(): void;
}
