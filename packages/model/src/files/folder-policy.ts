import type { ModelConfig, TinyModelOptions } from '@taorl/model';
import {
  type CheckpointStore,
  createTinyPolicy as createPortableTinyPolicy,
  initPolicy as initPortablePolicy,
  TransformerPolicy,
} from '@taorl/model';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.js';

/** Saves a checkpoint as a Hugging Face folder (`saveCheckpoint`): what `policy.save(dir)` does in Node. */
export const folderStore: CheckpointStore = { save: saveCheckpoint };

/** Loads a Qwen2 / Qwen3 policy from a local Hugging Face folder (see `loadCheckpoint`); it saves to folders. */
export async function loadPolicy(dir: string): Promise<TransformerPolicy> {
  return new TransformerPolicy(await loadCheckpoint(dir), folderStore);
}

/** A freshly initialised policy for any config (the portable `initPolicy`) that saves to folders. */
export function initPolicy(config: ModelConfig, seed = 0): TransformerPolicy {
  return initPortablePolicy(config, seed, folderStore);
}

/** The embedded default model (the portable `createTinyPolicy`) that saves to folders. */
export function createTinyPolicy(options: TinyModelOptions & { seed?: number }): TransformerPolicy {
  return createPortableTinyPolicy(options, folderStore);
}
