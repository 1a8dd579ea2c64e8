import type { Trajectory } from '@taorl/data';
import type { FinishReason } from './policy';

/** Tokens one `generate` call sampled for a trajectory, as the policy returned them (those the rollout kept). */
export interface PolicySegment {
  kind: 'policy';
  ids: Int32Array;
  logProbs: Float32Array;
  entropies: Float32Array;
  /** Why the policy stopped, as it said. */
  finishReason: FinishReason;
  /** The stop string the policy says it matched, for 'stop_string'. */
  stopString?: string;
  /** The rollout kept only the first `ids.length` of more sampled ids (the response budget ran out). */
  cut: boolean;
}

/** Tokens the environment inserted (an observation), exactly as tokenized. */
export interface ObservationSegment {
  kind: 'observation';
  ids: Int32Array;
}

export type RolloutSegment = PolicySegment | ObservationSegment;

/** What a trajectory was built from: its prompt, then every sampled and observed segment in order. */
export interface RolloutRecord {
  promptIds: Int32Array;
  segments: RolloutSegment[];
}

export interface TokenIntegrityOptions {
  /** Ids must lie in [0, vocabSize). */
  vocabSize: number;
  /** The ids the rollout asked the policy to stop at: one may only end a segment, and only a 'stop_token' one. */
  stopTokenIds: readonly number[];
  /** The tokenizer's decode: checks `text` and the stop strings against the ids. Omitted: those checks are off. */
  decode?: (ids: Int32Array) => string;
  /** Names the trajectory in errors, e.g. 'trajectory 3 (group q1)'. */
  label: string;
}

/** What a trajectory holds once it passed: the token counts a length shaper and the metrics use. */
export interface TokenIntegrityReport {
  /** Tokens the policy sampled (lossMask 1): the response length for length shaping. */
  policyTokens: number;
  /** Tokens the environment inserted (lossMask 0). */
  observationTokens: number;
}

/** A trajectory that does not match what was sampled and observed; the message names the trajectory and field. */
export class TokenIntegrityError extends Error {
  override name = 'TokenIntegrityError';
}

/**
 * The response length a length shaper (DAPO's overlong penalty) should see: the policy's tokens only. Tool output
 * is not the policy's length; counting it makes the penalty fire on trajectories whose tool printed a lot.
 */
export function policyTokenCount(trajectory: Pick<Trajectory, 'lossMask'>): number {
  let count = 0;
  for (const mask of trajectory.lossMask) if (mask !== 0) count++;
  return count;
}

/**
 * Checks a trajectory against the record of what was sampled and observed, throwing `TokenIntegrityError` on the
 * first disagreement: the prompt is the record's; the response is exactly the concatenation of the sampled and
 * observed ids (nothing re-tokenized, dropped or inserted); lossMask is 1 on exactly the sampled tokens; the
 * log-probs and entropies are the sampled ones there (finite; log-prob <= 0, entropy >= 0) and 0 elsewhere; every
 * tool call's span is one observation's; every id is in the vocabulary; each finish reason agrees with its ids (a
 * stop id only as the last id of a 'stop_token' segment, the claimed stop string in the decoded segment); `text`
 * is the decoded response. Linear in the response length.
 */
export function checkTokenIntegrity(
  trajectory: Trajectory,
  record: RolloutRecord,
  options: TokenIntegrityOptions,
): TokenIntegrityReport {
  const fail = (field: string, problem: string): never => {
    throw new TokenIntegrityError(`${options.label}: ${field} ${problem}`);
  };
  const { responseIds, lossMask, oldLogProbs, entropies } = trajectory;
  if (!sameIds(trajectory.promptIds, record.promptIds))
    fail('promptIds', 'differ from the prompt rolled out');
  const length = record.segments.reduce((sum, segment) => sum + segment.ids.length, 0);
  if (responseIds.length !== length) {
    fail('responseIds', `hold ${responseIds.length} tokens, the sampled and observed segments ${length}`);
  }
  for (const [name, column] of [
    ['lossMask', lossMask],
    ['oldLogProbs', oldLogProbs],
    ['entropies', entropies],
  ] as const) {
    if (column.length !== length) fail(name, `has ${column.length} entries for ${length} response tokens`);
  }
  const stopIds = new Set(options.stopTokenIds);
  const spans: [number, number][] = [];
  let policyTokens = 0;
  let at = 0;
  record.segments.forEach((segment, index) => {
    const where = `segment ${index} (${segment.kind})`;
    for (let i = 0; i < segment.ids.length; i++) {
      const p = at + i;
      const id = segment.ids[i]!;
      if (responseIds[p] !== id) fail(`responseIds[${p}]`, `is ${responseIds[p]}, ${where} has ${id}`);
      if (!Number.isInteger(id) || id < 0 || id >= options.vocabSize) {
        fail(`responseIds[${p}]`, `is ${id}, outside the vocabulary [0, ${options.vocabSize})`);
      }
      if (segment.kind === 'policy') {
        if (lossMask[p] !== 1) fail(`lossMask[${p}]`, `is ${lossMask[p]} on a sampled token (${where})`);
        const logProb = segment.logProbs[i]!;
        const entropy = segment.entropies[i]!;
        if (!(Number.isFinite(logProb) && logProb <= 0)) {
          fail(`oldLogProbs[${p}]`, `is ${logProb} as sampled, not a log-probability`);
        }
        if (!(Number.isFinite(entropy) && entropy >= 0)) fail(`entropies[${p}]`, `is ${entropy} as sampled`);
        if (!Object.is(oldLogProbs[p], logProb)) {
          fail(`oldLogProbs[${p}]`, `is ${oldLogProbs[p]}, the policy sampled it at ${logProb}`);
        }
        if (!Object.is(entropies[p], entropy)) {
          fail(`entropies[${p}]`, `is ${entropies[p]}, the policy reported ${entropy}`);
        }
      } else {
        if (lossMask[p] !== 0) fail(`lossMask[${p}]`, `is ${lossMask[p]} on an observation token (${where})`);
        if (oldLogProbs[p] !== 0 || entropies[p] !== 0) {
          fail(`oldLogProbs[${p}] / entropies[${p}]`, 'are not 0 on an observation token');
        }
      }
    }
    if (segment.kind === 'policy') {
      policyTokens += segment.ids.length;
      checkFinish(segment, where, stopIds, options.decode, fail);
    } else spans.push([at, at + segment.ids.length]);
    at += segment.ids.length;
  });
  if (trajectory.toolCalls.length !== spans.length) {
    fail('toolCalls', `has ${trajectory.toolCalls.length} calls for ${spans.length} observations`);
  }
  trajectory.toolCalls.forEach((call, i) => {
    const [start, end] = spans[i]!;
    if (call.startToken !== start || call.endToken !== end) {
      fail(
        `toolCalls[${i}]`,
        `spans [${call.startToken}, ${call.endToken}), the observation [${start}, ${end})`,
      );
    }
  });
  if (options.decode !== undefined && trajectory.text !== options.decode(responseIds)) {
    fail('text', 'is not the decoded responseIds');
  }
  return { policyTokens, observationTokens: length - policyTokens };
}

function checkFinish(
  segment: PolicySegment,
  where: string,
  stopIds: ReadonlySet<number>,
  decode: ((ids: Int32Array) => string) | undefined,
  fail: (field: string, problem: string) => never,
): void {
  const { ids, finishReason } = segment;
  const last = ids.length - 1;
  for (let i = 0; i < last; i++) {
    if (stopIds.has(ids[i]!))
      fail(where, `holds stop id ${ids[i]} at ${i}, before its end: sampling went past it`);
  }
  if (segment.cut || ids.length === 0) return;
  // A 'stop_token' finish may end on an id the rollout did not list: inference servers also stop on the model's
  // own end-of-sequence ids (generation_config.json), which is still the policy ending its turn.
  if (finishReason !== 'stop_token' && stopIds.has(ids[last]!)) {
    fail(where, `ends on stop id ${ids[last]} but finished with '${finishReason}'`);
  }
  if (finishReason === 'stop_string' && decode !== undefined && segment.stopString !== undefined) {
    if (!decode(ids).includes(segment.stopString)) {
      fail(
        where,
        `finished with stop string ${JSON.stringify(segment.stopString)}, which its ids do not spell`,
      );
    }
  }
}

function sameIds(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
