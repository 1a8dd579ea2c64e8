import type { Tokenizer } from '@taorl/data';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '../../src/index.js';

/**
 * A test double for the rollout engine: replays fixed assistant turns, one per generate call, honouring the stop
 * strings and stop ids the engine passes (turn k is chosen by how many observations the prefix already holds).
 * Everything around it (tokenizer, tool format, sandbox) is real.
 */
export interface ScriptedPolicyOptions {
  /**
   * Sample markup as the tokens it is ("<tool_call>" as Qwen's added token, as a real Qwen model writes it).
   * Default false: the turn is text byte by byte, only a final end-of-turn marker is the EOS token.
   */
  markupTokens?: boolean;
  /** Default 4096. */
  maxSequenceLength?: number;
}

export class ScriptedPolicy implements RolloutPolicy {
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  readonly calls: { prefixes: number; maxNewTokens: number }[] = [];

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly turns: readonly string[],
    private readonly observationMarker: string,
    private readonly options: ScriptedPolicyOptions = {},
  ) {
    this.vocabSize = tokenizer.vocabSize;
    this.maxSequenceLength = options.maxSequenceLength ?? 4096;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    this.calls.push({ prefixes: prompts.length, maxNewTokens: sampling.maxNewTokens });
    return prompts.map((prompt) => {
      const text = this.tokenizer.decode(prompt);
      const turn = text.split(this.observationMarker).length - 1;
      const ids = this.encodeTurn(this.turns[turn] ?? '');
      let end = Math.min(ids.length, sampling.maxNewTokens);
      let finishReason: GeneratedSequence['finishReason'] = 'length';
      for (let i = 0; i < end; i++) {
        if (sampling.stopTokenIds?.includes(ids[i]!)) {
          end = i + 1;
          finishReason = 'stop_token';
          break;
        }
        // As inference servers do: the token that completes a stop string ends the segment, whatever follows the
        // stop string inside that token (">\n" completing "</code>").
        const sofar = this.tokenizer.decode(ids.subarray(0, i + 1));
        if (sampling.stopStrings?.some((stop) => sofar.includes(stop))) {
          end = i + 1;
          finishReason = 'stop_string';
          break;
        }
      }
      const tokens = ids.slice(0, end);
      return {
        tokens,
        logProbs: Float32Array.from(tokens, (_, i) => -0.1 * (i + 1)),
        entropies: Float32Array.from(tokens, (_, i) => 0.01 * (i + 1)),
        finishReason,
      };
    });
  }

  /** Turn text is what the model writes byte by byte; only a final "<|im_end|>" is the EOS token. */
  private encodeTurn(text: string): Int32Array {
    if (this.options.markupTokens) return this.tokenizer.encode(text);
    const eos = this.tokenizer.specialTokenText(this.tokenizer.eosTokenId)!;
    if (!text.endsWith(eos)) return this.tokenizer.encodeUntrusted(text);
    const body = this.tokenizer.encodeUntrusted(text.slice(0, -eos.length));
    return Int32Array.from([...body, this.tokenizer.eosTokenId]);
  }
}
