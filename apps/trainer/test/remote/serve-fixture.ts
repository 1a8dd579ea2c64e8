import { ByteTokenizer } from '@taorl/data';
import type { TransformerPolicy } from '@taorl/model';
import { createTinyPolicy } from '@taorl/model/node';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import * as tf from '@tensorflow/tfjs';

/** The embedded model's tokenizer, decoding as `taorl serve` does (special tokens skipped). */
export const tokenizer = new ByteTokenizer();
export const decode = (ids: Int32Array, options = { skipSpecialTokens: true }) =>
  tokenizer.decode(ids, options);
export const EOS = tokenizer.eosTokenId;
export const MAX_LENGTH = 64;

/**
 * A tiny policy with weights far from their small initialisation, so its distributions are peaked: greedy
 * continuations differ between seeds and stop conditions depend on what the model generates.
 */
export function sharpPolicy(seed: number): TransformerPolicy {
  const policy = createTinyPolicy({
    vocabSize: tokenizer.vocabSize,
    maxPositionEmbeddings: MAX_LENGTH,
    seed,
  });
  sharpen(policy, seed * 1000);
  return policy;
}

/** Redraws every weight from N(0, 0.5), variable i seeded `weightSeed + i`: peaked distributions, no near-ties. */
export function sharpen(policy: TransformerPolicy, weightSeed: number): void {
  policy.trainableVariables().forEach((v, i) => {
    v.assign(tf.tidy(() => tf.randomNormal(v.shape, 0, 0.5, 'float32', weightSeed + i)));
  });
}

/** Wraps a policy to record every model call and to hold calls while `hold` is set, until `release()`. */
export class GatedPolicy<P extends RolloutPolicy = RolloutPolicy> implements RolloutPolicy {
  readonly calls: { prompts: Int32Array[]; sampling: SamplingParams }[] = [];
  #gate: Promise<void> | null = null;
  #open: (() => void) | null = null;

  constructor(readonly inner: P) {}

  get vocabSize(): number {
    return this.inner.vocabSize;
  }

  get maxSequenceLength(): number {
    return this.inner.maxSequenceLength;
  }

  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  release(): void {
    this.#open?.();
    this.#gate = null;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    this.calls.push({ prompts: [...prompts], sampling });
    if (this.#gate) await this.#gate;
    return this.inner.generate(prompts, sampling);
  }
}

export interface Reply<T> {
  status: number;
  body: T;
}

export async function post<T>(url: string, path: string, body: unknown): Promise<Reply<T>> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function get<T>(url: string, path: string): Promise<Reply<T>> {
  const response = await fetch(`${url}${path}`);
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/** Waits (event-loop turns, no deadline of its own) until `condition` holds. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** log softmax(logits / temperature) in float64 at each generated position, from the training forward. */
export function recomputedLogProbs(
  policy: TransformerPolicy,
  prompt: Int32Array,
  generated: Int32Array,
  temperature: number,
): number[][] {
  const all = Int32Array.from([...prompt, ...generated]);
  const logits = tf.tidy(() => policy.logits(tf.tensor2d(all, [1, all.length], 'int32')).arraySync()[0]!);
  const scale = temperature > 0 ? 1 / temperature : 1;
  return Array.from(generated, (_, k) => {
    const z = logits[prompt.length - 1 + k]!.map((v) => v * scale);
    const max = Math.max(...z);
    const lse = max + Math.log(z.reduce((a, v) => a + Math.exp(v - max), 0));
    return z.map((v) => v - lse);
  });
}
