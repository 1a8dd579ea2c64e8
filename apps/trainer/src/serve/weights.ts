import type { RolloutPolicy } from '@taorl/rollout';
import type { GenerationBatcher } from './batcher.js';
import { RequestFields } from './fields.js';
import { reloadFolder } from './reload-folder.js';
import type { ModelLimits } from './sampling.js';

/** SGLang's answer to POST /update_weights_from_disk. */
export interface UpdateWeightsResponse {
  success: boolean;
  message: string;
}

export interface WeightReloadOptions<P extends RolloutPolicy> {
  /** Builds a policy from a folder, or rejects with a message for the client (see `ServeOptions.loadWeights`). */
  load?(path: string): Promise<P>;
  /** The only folder reloads may read from (see `reloadFolder`); required with `load`. */
  root?: string;
  /** Frees a policy that was loaded but refused. */
  release?(policy: P): void;
  /** Where the served weights came from. */
  initialPath: string;
}

/**
 * POST /update_weights_from_disk {model_path}: loads the folder (which must lie inside the reload root, links
 * included) into a new policy while generation goes on, then
 * hands it to the batcher, which swaps it in between model calls. A folder that cannot be loaded, or whose model
 * differs in vocabulary or length, is refused with success false and the served weights stay. Reloads run one
 * after another, so weight versions count up in the order the requests came.
 */
export class WeightReloads<P extends RolloutPolicy> {
  #chain: Promise<unknown> = Promise.resolve();
  #path: string;

  constructor(
    private readonly batcher: GenerationBatcher<P>,
    private readonly limits: ModelLimits,
    private readonly options: WeightReloadOptions<P>,
  ) {
    this.#path = options.initialPath;
  }

  /** The folder of the weights served now (the latest successful reload). */
  get modelPath(): string {
    return this.#path;
  }

  /** Resolves once every reload received so far has finished. */
  settled(): Promise<unknown> {
    return this.#chain;
  }

  handle(body: unknown): Promise<{ status: number; body: UpdateWeightsResponse }> {
    const fields = RequestFields.of(body, null);
    const dir = fields.raw('model_path');
    if (typeof dir !== 'string' || dir === '') {
      return fields.fail(
        'model_path',
        'required: the Hugging Face folder (config.json + model.safetensors) to load',
      );
    }
    const done = this.#chain.then(() => this.#reload(dir));
    this.#chain = done;
    return done;
  }

  async #reload(dir: string): Promise<{ status: number; body: UpdateWeightsResponse }> {
    const { load, root } = this.options;
    if (!load || root === undefined) {
      const message =
        'this server cannot reload weights (start it with a reload folder: taorl serve --reload-dir)';
      return { status: 400, body: { success: false, message } };
    }
    try {
      const next = await load(await reloadFolder(root, dir));
      const { vocabSize, maxModelLen } = this.limits;
      if (next.vocabSize !== vocabSize || next.maxSequenceLength !== maxModelLen) {
        this.options.release?.(next);
        throw new Error(
          `${dir}: vocabulary ${next.vocabSize} and max length ${next.maxSequenceLength} differ from the served ` +
            `model's ${vocabSize} and ${maxModelLen}`,
        );
      }
      const version = await this.batcher.swap(next);
      this.#path = dir;
      return { status: 200, body: { success: true, message: `loaded ${dir} as weight version ${version}` } };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `${reason}; the previous weights (version ${this.batcher.weightVersion}) stay`;
      return { status: 400, body: { success: false, message } };
    }
  }
}
