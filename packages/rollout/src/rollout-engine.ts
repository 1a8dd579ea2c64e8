import type { Tokenizer, Trajectory } from '@taorl/data';
import { ModelCalls } from './model-calls.js';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from './policy.js';
import type { RolloutEnding, UnparseableCallPolicy } from './rollout-endings.js';
import { deriveSeed } from './seeds.js';
import { type RolloutPrompt, SequenceState } from './sequence-state.js';
import { checkTokenIntegrity, type RolloutRecord } from './token-integrity.js';
import type { ToolEnvironment, ToolOutcome } from './tool-environment.js';

export type { RolloutPrompt } from './sequence-state.js';

export interface RolloutOptions {
  /** Tool calls per trajectory at most; a further call ends the trajectory. */
  maxTurns: number;
  /** Response-length budget (policy + observation tokens); reaching it sets `truncated`. */
  maxResponseTokens: number;
  /** Temperature 0 = greedy. */
  sampling: Pick<SamplingParams, 'temperature' | 'topP' | 'topK'>;
  /** Sampling seeds derive from it per lane and turn, so the result does not depend on timing. */
  seed: number;
  /**
   * The batch is split into this many lanes that take turns on the model: while one lane's tool calls run in the
   * sandbox, another lane generates. 1 = turn-synchronous. With a policy that declares `concurrentGenerate`
   * (inference servers) the lanes do not take turns: each generates as soon as its tool calls are back.
   */
  lanes: number;
  /** When a tool call does not parse (see `UnparseableCallPolicy`). Default 'end'. */
  unparseableCall?: UnparseableCallPolicy;
  /**
   * Wall-time budget per trajectory in milliseconds, from the start of the rollout, checked at every turn: a
   * trajectory past it ends ('wall_time') instead of running its next call or generating again. Default: none.
   */
  maxWallMs?: number;
  /** The same code called this many times in a row ends the trajectory ('repeated_call') unrun. 0 = off (default). */
  maxRepeatedCalls?: number;
  /**
   * Check every trajectory against what was sampled and observed (`checkTokenIntegrity`) before returning it; a
   * mismatch throws naming the trajectory and field. Default true: it is linear in the tokens.
   */
  checkTokenIntegrity?: boolean;
}

/** Where the rollout's wall time went. */
export interface RolloutTiming {
  wallMs: number;
  /**
   * Wall time with at least one policy.generate call in flight. Calls are serialised for one local model; with
   * `concurrentGenerate` they overlap, and overlapping time counts once.
   */
  generationMs: number;
  /** Waiting for tool calls with nothing to generate: wallMs - generationMs. */
  sandboxMs: number;
  /** Sum of tool-call durations (overlapping one another and generation). */
  sandboxBusyMs: number;
  /** Tokens the policy generated (observation tokens excluded). */
  generatedTokens: number;
}

export interface RolloutResult {
  /** One per prompt, in prompt order; `reward` 0 and `correct` false until graded. */
  trajectories: Trajectory[];
  /** Why each trajectory ended, in prompt order. */
  endings: RolloutEnding[];
  /** Per trajectory, the sampled and observed segments it was built from (`checkTokenIntegrity`'s input). */
  records: RolloutRecord[];
  /** Per trajectory, the tool calls that did not parse (answered with an error, or left as text). */
  unparseableCalls: number[];
  timing: RolloutTiming;
}

/** A rollout that cannot go on: a tool environment or a policy failed; the message names the trajectories. */
export class RolloutError extends Error {
  override name = 'RolloutError';
}

/**
 * Multi-turn tool-integrated rollout of a batch: generate until a tool stop string or EOS; parse the call; execute
 * it while other lanes generate; append the observation with lossMask 0 (inline: untrusted text inside the
 * assistant's turn; with the tool environment's `toolTurns`, the chat template's tool turn after the model's
 * end-of-turn token); repeat up to maxTurns and the length budget. Records per policy token the sampled
 * log-prob and the entropy of the full distribution.
 */
export async function rollout(
  policy: RolloutPolicy,
  tokenizer: Tokenizer,
  tools: ToolEnvironment,
  prompts: readonly RolloutPrompt[],
  options: RolloutOptions,
): Promise<RolloutResult> {
  const started = performance.now();
  policy.beforeRollout?.();
  const model = new ModelCalls(policy.concurrentGenerate === true);
  const sequences = prompts.map((prompt, index) => new SequenceState(prompt, index));
  const stopTokenIds = [tokenizer.eosTokenId];
  let sandboxBusyMs = 0;
  let generatedTokens = 0;
  const decode = (ids: Int32Array) => tokenizer.decode(ids);

  const unparseableCall = options.unparseableCall ?? 'end';
  if (unparseableCall === 'observe' && tools.parseError === undefined) {
    throw new TypeError("rollout: unparseableCall 'observe' needs a tool environment with parseError");
  }
  const maxWallMs = options.maxWallMs ?? Number.POSITIVE_INFINITY;
  const maxRepeatedCalls = options.maxRepeatedCalls ?? 0;
  const overTime = () => performance.now() - started > maxWallMs;

  const { toolTurns } = tools;
  /**
   * The ids an observation inserts. Template layout: the template's tool turn after the model's end-of-turn token.
   * Inline layout: the rendered observation as untrusted text, its leading line break dropped when the model's
   * text already ends with one (a token such as ">\n" completed the stop string), so no line break is doubled.
   */
  const observationIds = (sequence: SequenceState, observation: string): Int32Array => {
    if (toolTurns !== undefined) return toolTurns.encode(observation);
    const merged = observation.startsWith('\n') && sequence.segmentText(decode).endsWith('\n');
    return tokenizer.encodeUntrusted(merged ? observation.slice(1) : observation);
  };

  /**
   * A sequence's response budget: maxResponseTokens, and no more than the model's context leaves after its prompt
   * (an observation cut only to maxResponseTokens made a trajectory longer than the model could score).
   */
  const budgetOf = (sequence: SequenceState): number =>
    Math.min(options.maxResponseTokens, policy.maxSequenceLength - sequence.prompt.promptIds.length);

  /** Appends an observation, cut to the response budget (which it may end). */
  const observe = (sequence: SequenceState, outcome: ToolOutcome, code: string): void => {
    const observation = observationIds(sequence, outcome.observation);
    const room = budgetOf(sequence) - sequence.length;
    const call = { status: outcome.status, code, output: outcome.observation };
    sequence.appendObservation(
      observation.length <= room ? observation : observation.subarray(0, room),
      call,
    );
    if (observation.length >= room) sequence.finish('length');
  };

  const runTool = async (sequence: SequenceState, code: string): Promise<void> => {
    let outcome: ToolOutcome;
    try {
      outcome = await tools.execute(code);
    } catch (error) {
      throw new RolloutError(
        `${sequence.label}: the tool environment threw on call ${sequence.toolCalls + 1}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    if (typeof outcome?.observation !== 'string' || !Number.isFinite(outcome.durationMs)) {
      throw new RolloutError(
        `${sequence.label}: the tool environment's outcome of call ${sequence.toolCalls + 1} needs an observation ` +
          'string and a finite durationMs',
      );
    }
    sandboxBusyMs += outcome.durationMs;
    observe(sequence, outcome, code);
  };

  /** Appends one generated continuation and decides what happens next; returns the code to run, if any. */
  const advance = (sequence: SequenceState, generated: GeneratedSequence | undefined): string | null => {
    checkGenerated(sequence, generated);
    const kept = Math.min(budgetOf(sequence) - sequence.length, generated.tokens.length);
    sequence.appendPolicy(generated, kept);
    generatedTokens += kept;
    if (kept < generated.tokens.length || generated.finishReason === 'length') {
      sequence.finish('length');
      return null;
    }
    // Template layout: the model ends every turn with its end-of-turn token, a call's turn included.
    const endedTurn = generated.finishReason === 'stop_token';
    if (endedTurn && toolTurns === undefined) {
      sequence.finish('eos');
      return null;
    }
    const segment = sequence.segmentText(decode);
    const code = tools.parse(segment);
    if (code === null && endedTurn) {
      sequence.finish('eos');
      return null;
    }
    if (code === null) return unparseable(sequence, segment);
    if (sequence.toolCalls >= options.maxTurns) {
      sequence.finish('max_turns');
      return null;
    }
    if (sequence.length >= budgetOf(sequence)) {
      sequence.finish('length');
      return null;
    }
    if (overTime()) {
      sequence.finish('wall_time');
      return null;
    }
    sequence.repeats = code === sequence.lastCode ? sequence.repeats + 1 : 1;
    sequence.lastCode = code;
    if (maxRepeatedCalls > 0 && sequence.repeats >= maxRepeatedCalls) {
      sequence.finish('repeated_call');
      return null;
    }
    return code;
  };

  /** A segment that paused on a tool stop string without a call the environment can parse. */
  const unparseable = (sequence: SequenceState, segment: string): null => {
    if (unparseableCall === 'end') {
      sequence.finish('no_tool_call');
      return null;
    }
    sequence.unparseableCalls++;
    if (unparseableCall === 'observe') {
      if (sequence.toolCalls >= options.maxTurns) sequence.finish('max_turns');
      else if (sequence.length >= budgetOf(sequence)) sequence.finish('length');
      else observe(sequence, tools.parseError!(segment), '');
    } else if (sequence.length >= budgetOf(sequence)) sequence.finish('length');
    return null;
  };

  /** A generate answer the rollout can build on, or an error naming the trajectory and the field. */
  function checkGenerated(
    sequence: SequenceState,
    generated: GeneratedSequence | undefined,
  ): asserts generated is GeneratedSequence {
    if (generated === undefined) {
      throw new RolloutError(`${sequence.label}: the policy's generate returned no sequence for it`);
    }
    const count = generated.tokens.length;
    for (const field of ['logProbs', 'entropies'] as const) {
      if (generated[field].length !== count) {
        throw new RolloutError(
          `${sequence.label}: the policy returned ${count} tokens but ${generated[field].length} ${field}`,
        );
      }
    }
    for (let i = 0; i < count; i++) {
      const id = generated.tokens[i]!;
      if (id < 0 || id >= policy.vocabSize) {
        throw new RolloutError(
          `${sequence.label}: the policy returned id ${id} (tokens[${i}]), outside the vocabulary [0, ${policy.vocabSize})`,
        );
      }
    }
  }

  // Lane failures in the order they happened: after the first, the other lanes stop at their next turn instead of
  // generating for a lost batch.
  const failures: unknown[] = [];
  const runLane = async (lane: readonly SequenceState[], laneIndex: number): Promise<void> => {
    for (let turn = 0; failures.length === 0; turn++) {
      if (overTime()) for (const sequence of lane) if (!sequence.done) sequence.finish('wall_time');
      const active = lane.filter((sequence) => !sequence.done);
      if (active.length === 0) return;
      const prefixes = active.map((sequence) => sequence.prefix());
      const longest = Math.max(...prefixes.map((prefix) => prefix.length));
      const maxNewTokens = Math.min(
        Math.max(...active.map((sequence) => budgetOf(sequence) - sequence.length)),
        policy.maxSequenceLength - longest,
      );
      if (maxNewTokens <= 0) {
        for (const sequence of active) sequence.finish('length');
        return;
      }
      const generated = await model
        .run(() =>
          policy.generate(prefixes, {
            ...options.sampling,
            maxNewTokens,
            stopTokenIds,
            stopStrings: tools.stopStrings,
            decode,
            tokenizerVocabSize: tokenizer.vocabSize,
            seed: deriveSeed(options.seed, 'rollout', laneIndex, turn),
          }),
        )
        .catch((error: unknown) => {
          throw new RolloutError(
            `${labels(active)}: the policy's generate failed at turn ${turn}: ${messageOf(error)}`,
            { cause: error },
          );
        });
      const calls: Promise<void>[] = [];
      active.forEach((sequence, i) => {
        const code = advance(sequence, generated[i]);
        if (code !== null) calls.push(runTool(sequence, code));
      });
      await Promise.all(calls);
    }
  };

  const laneCount = Math.max(1, Math.min(options.lanes, sequences.length));
  const lanes = Array.from({ length: laneCount }, (_, lane) =>
    sequences.filter((_, index) => index % laneCount === lane),
  );
  // Every lane settles before the rollout does, so a failure leaves no generation or tool call running behind it.
  await Promise.all(
    lanes.map((lane, index) =>
      runLane(lane, index).catch((error: unknown) => {
        failures.push(error);
      }),
    ),
  );
  if (failures.length > 0) throw failures[0];

  const trajectories = sequences.map((sequence) => sequence.toTrajectory(tokenizer));
  if (options.checkTokenIntegrity !== false) {
    trajectories.forEach((trajectory, i) => {
      checkTokenIntegrity(trajectory, sequences[i]!.record, {
        vocabSize: policy.vocabSize,
        stopTokenIds,
        decode,
        label: sequences[i]!.label,
      });
    });
  }
  const wallMs = performance.now() - started;
  return {
    trajectories,
    endings: sequences.map((sequence) => sequence.ending!),
    records: sequences.map((sequence) => sequence.record),
    unparseableCalls: sequences.map((sequence) => sequence.unparseableCalls),
    timing: {
      wallMs,
      generationMs: model.busyMs,
      sandboxMs: Math.max(0, wallMs - model.busyMs),
      sandboxBusyMs,
      generatedTokens,
    },
  };
}

/** 'trajectory 0 (group q1), trajectory 2 (group q1)', at most four named. */
function labels(sequences: readonly SequenceState[]): string {
  const named = sequences.slice(0, 4).map((sequence) => sequence.label);
  const more = sequences.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
