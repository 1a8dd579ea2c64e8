import { matMul2d } from '@taorl/grpo';
import type { GeneratedSequence, SamplingParams } from '@taorl/rollout';
import * as tf from '@tensorflow/tfjs';
import { type ModelConfig, type TinyModelOptions, tinyQwen3Config } from './config.js';
import { causalMask, type DecoderWeights, decoderHidden, headMatrix } from './decoder.js';
import { generate } from './generate.js';
import type { Policy } from './policy.js';
import { ropeTables } from './rope.js';
import type { Checkpoint, SaveOptions } from './weight-specs.js';
import { initialTensors, tensorsFromWeights, weightsFromTensors, weightVariables } from './weights.js';

/**
 * Where a policy's `save(dir)` writes: the './node' entry's `folderStore` writes a Hugging Face folder; a page
 * may keep a checkpoint its own way (IndexedDB, a download), `encodeSafetensors` giving the bytes.
 */
export interface CheckpointStore {
  save(dir: string, checkpoint: Checkpoint, options?: SaveOptions): Promise<void>;
}

/**
 * The Qwen2 / Qwen3 decoder as a `Policy`, on whichever tfjs backend is active. `save` writes through the
 * `CheckpointStore` it was built with (the './node' entry's factories give it the folder store).
 */
export class TransformerPolicy implements Policy {
  readonly config: ModelConfig;
  private readonly weights: DecoderWeights;
  /** The tokenizer and generation files of the folder it was loaded from, written again by `save`. */
  private readonly files: ReadonlyMap<string, Uint8Array>;
  private readonly store: CheckpointStore | undefined;

  constructor(checkpoint: Checkpoint, store?: CheckpointStore) {
    this.config = checkpoint.config;
    this.weights = weightsFromTensors(checkpoint.config, checkpoint.tensors);
    this.files = checkpoint.files ?? new Map();
    this.store = store;
  }

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  get maxSequenceLength(): number {
    return this.config.maxPositionEmbeddings;
  }

  generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    return generate(this.config, this.weights, prompts, sampling);
  }

  logits(tokens: tf.Tensor2D): tf.Tensor3D {
    const [b, t] = tokens.shape;
    if (t > this.config.maxPositionEmbeddings) {
      throw new Error(
        `logits: ${t} tokens exceed the model's ${this.config.maxPositionEmbeddings} positions`,
      );
    }
    return tf.tidy(() => {
      const positions = Int32Array.from({ length: t }, (_, i) => i);
      const rope = ropeTables(positions, [1, t], this.config.headDim, this.config.ropeTheta);
      const { hidden } = decoderHidden(this.weights, this.config, tokens, { rope, mask: causalMask(t, t) });
      return tf.reshape(matMul2d(hidden, headMatrix(this.weights)), [b, t, this.config.vocabSize]);
    });
  }

  trainableVariables(): tf.Variable[] {
    return weightVariables(this.weights);
  }

  /** The weights as Hugging Face tensors (float32) with the companion files, e.g. to save or to copy into another policy. */
  toCheckpoint(): Checkpoint {
    return { config: this.config, tensors: tensorsFromWeights(this.config, this.weights), files: this.files };
  }

  /** A Hugging Face folder that loads as this model: config.json, the weights and the files it was loaded with. */
  save(dir: string, options?: SaveOptions): Promise<void> {
    if (this.store === undefined) {
      return Promise.reject(
        new Error(
          `TransformerPolicy.save(${JSON.stringify(dir)}): this policy has no checkpoint store; in Node build it ` +
            "with '@taorl/model/node' (loadPolicy, initPolicy, createTinyPolicy), elsewhere pass a CheckpointStore " +
            'or save toCheckpoint() yourself (encodeSafetensors)',
        ),
      );
    }
    return this.store.save(dir, this.toCheckpoint(), options);
  }

  dispose(): void {
    tf.dispose(this.trainableVariables());
  }
}

/** A freshly initialised policy for any config (see `initialTensors`), saving through `store` if given. */
export function initPolicy(config: ModelConfig, seed = 0, store?: CheckpointStore): TransformerPolicy {
  return new TransformerPolicy({ config, tensors: initialTensors(config, seed) }, store);
}

/** The embedded default: a fresh tiny Qwen3-style policy (`tinyQwen3Config`) for a tokenizer's vocabulary. */
export function createTinyPolicy(
  options: TinyModelOptions & { seed?: number },
  store?: CheckpointStore,
): TransformerPolicy {
  return initPolicy(tinyQwen3Config(options), options.seed, store);
}
