import type { GenerationBatcher, TextDecode } from './batcher.js';
import type { ModelLimits } from './sampling.js';

/** What a generation route needs: the batcher in front of the policy, the text side, the model's limits. */
export interface ServeContext {
  batcher: GenerationBatcher;
  decode: TextDecode;
  modelName: string;
  limits: ModelLimits;
}
