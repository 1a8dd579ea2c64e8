import { ResponseBuilder, type Tokenizer, type ToolCallRecord, type Trajectory } from '@taorl/data';
import type { GeneratedSequence } from './policy';
import type { RolloutEnding } from './rollout-endings';
import type { RolloutRecord } from './token-integrity';

/** One sequence to roll out: the rendered prompt and the question group it belongs to. */
export interface RolloutPrompt {
  groupId: string;
  promptIds: Int32Array;
}

/**
 * One sequence in flight: its response (built token for token as sampled), the record of every sampled and
 * observed segment it was built from (what `checkTokenIntegrity` compares it with), and where it stands.
 */
export class SequenceState {
  readonly response = new ResponseBuilder();
  readonly record: RolloutRecord;
  /** Policy tokens since the last observation, decoded to find the tool call the segment ends with. */
  segment: number[] = [];
  toolCalls = 0;
  /** Tool calls that did not parse (answered with an error observation, or left as text). */
  unparseableCalls = 0;
  /** The last call's code and how many times in a row it was made. */
  lastCode: string | null = null;
  repeats = 0;
  ending: RolloutEnding | null = null;
  truncated = false;
  private readonly ids: number[] = [];

  constructor(
    readonly prompt: RolloutPrompt,
    /** Position in the batch, for errors. */
    readonly index: number,
  ) {
    this.record = { promptIds: prompt.promptIds, segments: [] };
  }

  get done(): boolean {
    return this.ending !== null;
  }

  get length(): number {
    return this.response.length;
  }

  /** 'trajectory 3 (group q1)': how errors name it. */
  get label(): string {
    return `trajectory ${this.index} (group ${this.prompt.groupId})`;
  }

  appendPolicy(generated: GeneratedSequence, count: number): void {
    const ids = generated.tokens.subarray(0, count);
    const logProbs = generated.logProbs.subarray(0, count);
    const entropies = generated.entropies.subarray(0, count);
    this.response.appendPolicy(ids, logProbs, entropies);
    this.record.segments.push({
      kind: 'policy',
      ids,
      logProbs,
      entropies,
      finishReason: generated.finishReason,
      ...(generated.stopString === undefined ? {} : { stopString: generated.stopString }),
      cut: count < generated.tokens.length,
    });
    for (const id of ids) {
      this.ids.push(id);
      this.segment.push(id);
    }
  }

  appendObservation(ids: Int32Array, call: ToolCallRecord): void {
    this.response.appendObservation(ids, call);
    this.record.segments.push({ kind: 'observation', ids });
    for (const id of ids) this.ids.push(id);
    this.segment = [];
    this.toolCalls++;
  }

  /** The policy's text since the last observation. */
  segmentText(decode: (ids: Int32Array) => string): string {
    return decode(Int32Array.from(this.segment));
  }

  prefix(): Int32Array {
    const prefix = new Int32Array(this.prompt.promptIds.length + this.ids.length);
    prefix.set(this.prompt.promptIds);
    prefix.set(this.ids, this.prompt.promptIds.length);
    return prefix;
  }

  finish(ending: RolloutEnding): void {
    this.ending = ending;
    this.truncated = ending === 'length';
  }

  toTrajectory(tokenizer: Tokenizer): Trajectory {
    const columns = this.response.build();
    return {
      groupId: this.prompt.groupId,
      promptIds: this.prompt.promptIds,
      ...columns,
      reward: 0,
      correct: false,
      truncated: this.truncated,
      text: tokenizer.decode(columns.responseIds),
    };
  }
}
