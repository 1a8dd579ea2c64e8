import type { Tokenizer } from '@taorl/data';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';

/**
 * A RolloutPolicy whose every turn is the text `answer` writes for the decoded prefix, for tests where the model is
 * not the subject. A final "<|im_end|>" is the EOS token; a turn ending in "```output" ends on the stop string.
 */
export class TextPolicy implements RolloutPolicy {
  readonly vocabSize: number;
  readonly maxSequenceLength = 1 << 16;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly answer: (prefix: string) => string,
  ) {
    this.vocabSize = tokenizer.vocabSize;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    return prompts.map((prompt) => this.reply(this.answer(this.tokenizer.decode(prompt)), sampling));
  }

  private reply(text: string, sampling: SamplingParams): GeneratedSequence {
    const eos = '<|im_end|>';
    const ids = text.endsWith(eos)
      ? Int32Array.from([
          ...this.tokenizer.encodeUntrusted(text.slice(0, -eos.length)),
          this.tokenizer.eosTokenId,
        ])
      : this.tokenizer.encodeUntrusted(text);
    const tokens = ids.slice(0, sampling.maxNewTokens);
    const finishReason =
      tokens.length < ids.length ? 'length' : text.endsWith(eos) ? 'stop_token' : 'stop_string';
    return {
      tokens,
      logProbs: new Float32Array(tokens.length),
      entropies: new Float32Array(tokens.length),
      finishReason,
    };
  }
}
