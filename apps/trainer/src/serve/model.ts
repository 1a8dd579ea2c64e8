import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ByteTokenizer, type Tokenizer } from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';
import type { ModelConfig, TransformerPolicy } from '@taorl/model';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';

/** The policy `taorl serve` serves, its tokenizer, and how to load new weights of the same architecture. */
export interface ServedModel {
  policy: TransformerPolicy;
  tokenizer: Tokenizer;
  /** The folder it came from; undefined for the embedded tiny model. */
  dir?: string;
  /**
   * A folder's weights as a new policy; rejects a folder whose config.json differs, naming the fields, or whose
   * forward pass is not finite on a probe input (checkFiniteForward).
   */
  loadWeights(dir: string): Promise<TransformerPolicy>;
}

export interface ServedModelOptions {
  /** A Hugging Face folder (config.json + safetensors, tokenizer.json optional); omitted: the embedded tiny model. */
  dir?: string;
  /** Initialisation seed of the embedded tiny model. Default 0. */
  seed?: number;
}

/** Tokens of the probe input a model's weights must give a finite forward pass on. */
const PROBE_TOKENS = 16;

/**
 * Refuses weights whose forward pass is not finite on a probe input (ids spread over the vocabulary): finite
 * weights can still overflow float32 inside a layer (values near +-3e38 in q_proj), and the server would then
 * answer 200 with NaN log-probs (null in JSON). One greedy token: its log-prob and entropy must be finite.
 */
export async function checkFiniteForward(policy: TransformerPolicy, dir: string): Promise<void> {
  const length = Math.max(1, Math.min(PROBE_TOKENS, policy.maxSequenceLength - 1));
  const probe = Int32Array.from({ length }, (_, i) => Math.floor((i * policy.vocabSize) / length));
  const [sequence] = await policy.generate([probe], { maxNewTokens: 1, temperature: 0 });
  const logProb = sequence?.logProbs[0];
  const entropy = sequence?.entropies[0];
  if (!Number.isFinite(logProb) || !Number.isFinite(entropy)) {
    throw new Error(
      `${dir}: the model's forward pass on a probe input of ${length} tokens is not finite (log-prob ` +
        `${logProb}, entropy ${entropy}): some weights overflow float32 inside a layer (values near +-3e38?); ` +
        'these weights are refused',
    );
  }
}

/**
 * Opens the model to serve; weights whose forward pass is not finite are refused (checkFiniteForward). A folder
 * with tokenizer.json gets its HfTokenizer; one without (as `Policy.save` writes
 * for the embedded model) gets the byte tokenizer, which must match its vocabulary.
 */
export async function openServedModel(options: ServedModelOptions): Promise<ServedModel> {
  const { dir } = options;
  let policy: TransformerPolicy;
  let tokenizer: Tokenizer;
  if (dir === undefined) {
    tokenizer = new ByteTokenizer();
    policy = createTinyPolicy({ vocabSize: tokenizer.vocabSize, seed: options.seed ?? 0 });
  } else {
    policy = await loadPolicy(dir);
    await checkFiniteForward(policy, dir).catch((error: unknown) => {
      policy.dispose();
      throw error;
    });
    const hasTokenizer = existsSync(join(dir, 'tokenizer.json'));
    tokenizer = hasTokenizer ? await loadHfTokenizer(dir) : new ByteTokenizer();
    if (!hasTokenizer && policy.vocabSize !== tokenizer.vocabSize) {
      policy.dispose();
      throw new Error(
        `${dir}: no tokenizer.json, and the model's vocabulary (${policy.vocabSize}) is not the byte ` +
          `tokenizer's (${tokenizer.vocabSize}); add the model's tokenizer.json to the folder`,
      );
    }
  }
  const served = policy.config;
  return {
    policy,
    tokenizer,
    ...(dir === undefined ? {} : { dir }),
    async loadWeights(next) {
      const loaded = await loadPolicy(next);
      try {
        const differences = configDifferences(served, loaded.config);
        if (differences.length > 0) {
          throw new Error(
            `${next}: config.json does not match the served model (${differences.join('; ')}); ` +
              'only weights of the same architecture can be swapped in',
          );
        }
        await checkFiniteForward(loaded, next);
      } catch (error) {
        loaded.dispose();
        throw error;
      }
      return loaded;
    },
  };
}

/** "field: served vs loaded" for each field of the two configs that differs. */
function configDifferences(served: ModelConfig, loaded: ModelConfig): string[] {
  const fields = new Set([...Object.keys(served), ...Object.keys(loaded)]) as Set<keyof ModelConfig>;
  return [...fields]
    .filter((field) => served[field] !== loaded[field])
    .map((field) => `${field}: ${String(served[field])} served vs ${String(loaded[field])} in the folder`);
}
