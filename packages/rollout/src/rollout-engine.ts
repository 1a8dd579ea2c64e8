import { ResponseBuilder, type Tokenizer, type ToolCallRecord, type Trajectory } from '@taorl/data';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from './policy.js';
import { deriveSeed } from './seeds.js';
import type { ToolEnvironment } from './tool-environment.js';

/** One sequence to roll out: the rendered prompt and the question group it belongs to. */
export interface RolloutPrompt {
  groupId: string;
  promptIds: Int32Array;
}

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
  timing: RolloutTiming;
}

/** One sequence in flight: its response (built token for token as sampled) and where it stands. */
class SequenceState {
  readonly response = new ResponseBuilder();
  /** Policy tokens since the last observation, decoded to find the tool call the segment ends with. */
  segment: number[] = [];
  toolCalls = 0;
  done = false;
  truncated = false;
  private readonly ids: number[] = [];

  constructor(readonly prompt: RolloutPrompt) {}

  get length(): number {
    return this.response.length;
  }

  appendPolicy(generated: GeneratedSequence, count: number): void {
    const ids = generated.tokens.subarray(0, count);
    this.response.appendPolicy(
      ids,
      generated.logProbs.subarray(0, count),
      generated.entropies.subarray(0, count),
    );
    for (const id of ids) {
      this.ids.push(id);
      this.segment.push(id);
    }
  }

  appendObservation(ids: Int32Array, call: ToolCallRecord): void {
    this.response.appendObservation(ids, call);
    for (const id of ids) this.ids.push(id);
    this.segment = [];
    this.toolCalls++;
  }

  prefix(): Int32Array {
    const prefix = new Int32Array(this.prompt.promptIds.length + this.ids.length);
    prefix.set(this.prompt.promptIds);
    prefix.set(this.ids, this.prompt.promptIds.length);
    return prefix;
  }

  finish(truncated: boolean): void {
    this.done = true;
    this.truncated = truncated;
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

/**
 * Runs model calls one at a time (one local model) or as they come (`concurrent`: servers batch them), and
 * accumulates the wall time during which at least one call is in flight.
 */
class ModelCalls {
  busyMs = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private busySince = 0;

  constructor(private readonly concurrent: boolean) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.concurrent) return this.timed(work);
    const next = this.tail.then(() => this.timed(work));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight++ === 0) this.busySince = performance.now();
    try {
      return await work();
    } finally {
      if (--this.inFlight === 0) this.busyMs += performance.now() - this.busySince;
    }
  }
}

/**
 * Multi-turn tool-integrated rollout of a batch (ALGORITHMS.md section 1): generate until a tool stop string or
 * EOS; parse the call; execute it while other lanes generate; append the observation, tokenized as untrusted
 * text, with lossMask 0; repeat up to maxTurns and the length budget. Records per policy token the sampled
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
  const sequences = prompts.map((prompt) => new SequenceState(prompt));
  let sandboxBusyMs = 0;
  let generatedTokens = 0;
  const decode = (ids: Int32Array) => tokenizer.decode(ids);

  const runTool = async (sequence: SequenceState, code: string): Promise<void> => {
    const outcome = await tools.execute(code);
    sandboxBusyMs += outcome.durationMs;
    const observation = tokenizer.encodeUntrusted(outcome.observation);
    const room = options.maxResponseTokens - sequence.length;
    const call = { status: outcome.status, code, output: outcome.observation };
    sequence.appendObservation(
      observation.length <= room ? observation : observation.subarray(0, room),
      call,
    );
    if (observation.length >= room) sequence.finish(true);
  };

  /** Appends one generated continuation and decides what happens next; returns the code to run, if any. */
  const advance = (sequence: SequenceState, generated: GeneratedSequence): string | null => {
    const kept = Math.min(options.maxResponseTokens - sequence.length, generated.tokens.length);
    sequence.appendPolicy(generated, kept);
    generatedTokens += kept;
    if (kept < generated.tokens.length || generated.finishReason === 'length') {
      sequence.finish(true);
      return null;
    }
    if (generated.finishReason === 'stop_token') {
      sequence.finish(false);
      return null;
    }
    const code = tools.parse(tokenizer.decode(sequence.segment));
    if (code === null || sequence.toolCalls >= options.maxTurns) {
      sequence.finish(false);
      return null;
    }
    if (sequence.length >= options.maxResponseTokens) {
      sequence.finish(true);
      return null;
    }
    return code;
  };

  // Lane failures in the order they happened: after the first, the other lanes stop at their next turn instead of
  // generating for a lost batch.
  const failures: unknown[] = [];
  const runLane = async (lane: readonly SequenceState[], laneIndex: number): Promise<void> => {
    for (let turn = 0; failures.length === 0; turn++) {
      const active = lane.filter((sequence) => !sequence.done);
      if (active.length === 0) return;
      const prefixes = active.map((sequence) => sequence.prefix());
      const longest = Math.max(...prefixes.map((prefix) => prefix.length));
      const maxNewTokens = Math.min(
        Math.max(...active.map((sequence) => options.maxResponseTokens - sequence.length)),
        policy.maxSequenceLength - longest,
      );
      if (maxNewTokens <= 0) {
        for (const sequence of active) sequence.finish(true);
        return;
      }
      const generated = await model.run(() =>
        policy.generate(prefixes, {
          ...options.sampling,
          maxNewTokens,
          stopTokenIds: [tokenizer.eosTokenId],
          stopStrings: tools.stopStrings,
          decode,
          tokenizerVocabSize: tokenizer.vocabSize,
          seed: deriveSeed(options.seed, 'rollout', laneIndex, turn),
        }),
      );
      const calls: Promise<void>[] = [];
      active.forEach((sequence, i) => {
        const code = advance(sequence, generated[i]!);
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

  const wallMs = performance.now() - started;
  return {
    trajectories: sequences.map((sequence) => sequence.toTrajectory(tokenizer)),
    timing: {
      wallMs,
      generationMs: model.busyMs,
      sandboxMs: Math.max(0, wallMs - model.busyMs),
      sandboxBusyMs,
      generatedTokens,
    },
  };
}
