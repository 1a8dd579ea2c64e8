import type { ToolCall, Trajectory } from './types';

/** The columns of a response, as ResponseBuilder.build returns them. */
export type ResponseColumns = Pick<
  Trajectory,
  'responseIds' | 'lossMask' | 'oldLogProbs' | 'entropies' | 'toolCalls'
>;

/** A tool call before its observation has been placed in the response. */
export type ToolCallRecord = Omit<ToolCall, 'startToken' | 'endToken'>;

/**
 * Assembles a response from token segments exactly as the rollout produced them: the ids the policy sampled
 * (lossMask 1, with their log-probs and entropies) and the ids of inserted observations (lossMask 0). Text is
 * never decoded and re-tokenized on the way, which is the only way to guarantee that training sees the very
 * tokens the rollout policy scored: re-tokenizing decoded text can merge across segment boundaries or choose a
 * different split than the sampler did, silently corrupting the importance ratio.
 */
export class ResponseBuilder {
  #ids: number[] = [];
  #mask: number[] = [];
  #logProbs: number[] = [];
  #entropies: number[] = [];
  #toolCalls: ToolCall[] = [];

  get length(): number {
    return this.#ids.length;
  }

  /** Tokens sampled by the policy; logProbs and entropies are per token (0 when unknown, e.g. SFT data). */
  appendPolicy(ids: ArrayLike<number>, logProbs?: ArrayLike<number>, entropies?: ArrayLike<number>): this {
    for (const [name, column] of [
      ['logProbs', logProbs],
      ['entropies', entropies],
    ] as const) {
      if (column && column.length !== ids.length) {
        throw new RangeError(
          `ResponseBuilder.appendPolicy: ${name} has ${column.length} entries for ${ids.length} ids`,
        );
      }
    }
    for (let i = 0; i < ids.length; i++) {
      this.#ids.push(ids[i] as number);
      this.#mask.push(1);
      this.#logProbs.push(logProbs ? (logProbs[i] as number) : 0);
      this.#entropies.push(entropies ? (entropies[i] as number) : 0);
    }
    return this;
  }

  /** Tokens inserted by the environment that are not a tool observation (lossMask 0). */
  appendInserted(ids: ArrayLike<number>): this {
    for (let i = 0; i < ids.length; i++) {
      this.#ids.push(ids[i] as number);
      this.#mask.push(0);
      this.#logProbs.push(0);
      this.#entropies.push(0);
    }
    return this;
  }

  /** The observation of a tool call (lossMask 0); records the call with the token span of the observation. */
  appendObservation(ids: ArrayLike<number>, call: ToolCallRecord): ToolCall {
    const startToken = this.length;
    this.appendInserted(ids);
    const placed: ToolCall = { ...call, startToken, endToken: this.length };
    this.#toolCalls.push(placed);
    return placed;
  }

  build(): ResponseColumns {
    return {
      responseIds: Int32Array.from(this.#ids),
      lossMask: Uint8Array.from(this.#mask),
      oldLogProbs: Float32Array.from(this.#logProbs),
      entropies: Float32Array.from(this.#entropies),
      toolCalls: this.#toolCalls.map((call) => ({ ...call })),
    };
  }
}

/** The model input for one trajectory: prompt then response ids, with masks and rollout values aligned. */
export interface TrainingSequence {
  inputIds: Int32Array;
  /** 0 on the prompt, the response's lossMask after it. */
  lossMask: Uint8Array;
  oldLogProbs: Float32Array;
  entropies: Float32Array;
  promptLength: number;
}

/**
 * The token sequence to train on, built by concatenating the stored prompt and response ids. Use it instead of
 * re-encoding `text`: it is token-for-token what the rollout policy saw and sampled.
 */
export function trainingSequence(
  trajectory: Pick<Trajectory, 'promptIds' | 'responseIds' | 'lossMask' | 'oldLogProbs' | 'entropies'>,
): TrainingSequence {
  const promptLength = trajectory.promptIds.length;
  const total = promptLength + trajectory.responseIds.length;
  const inputIds = new Int32Array(total);
  inputIds.set(trajectory.promptIds);
  inputIds.set(trajectory.responseIds, promptLength);
  const lossMask = new Uint8Array(total);
  lossMask.set(trajectory.lossMask, promptLength);
  const oldLogProbs = new Float32Array(total);
  oldLogProbs.set(trajectory.oldLogProbs, promptLength);
  const entropies = new Float32Array(total);
  entropies.set(trajectory.entropies, promptLength);
  return { inputIds, lossMask, oldLogProbs, entropies, promptLength };
}
