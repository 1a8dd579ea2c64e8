import type { Tokenizer, ToolCall, Trajectory } from '@taorl/data';
import type { GeneratedSequence, Policy, SamplingParams } from '../model/policy.js';
import { deriveSeed } from '../util/seeds.js';
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
   * sandbox, another lane generates. 1 = turn-synchronous.
   */
  lanes: number;
}

/** Where the rollout's wall time went. */
export interface RolloutTiming {
  wallMs: number;
  /** Inside policy.generate (calls are serialised, so this is wall time). */
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

/** A growing response in columnar form; converted to typed arrays once the rollout ends. */
class ResponseBuilder {
  readonly ids: number[] = [];
  readonly lossMask: number[] = [];
  readonly logProbs: number[] = [];
  readonly entropies: number[] = [];
  readonly toolCalls: ToolCall[] = [];
  /** Response index where the current assistant segment (after the last observation) starts. */
  segmentStart = 0;
  done = false;
  truncated = false;

  constructor(readonly prompt: RolloutPrompt) {}

  appendPolicyTokens(generated: GeneratedSequence, count: number): void {
    for (let i = 0; i < count; i++) {
      this.ids.push(generated.tokens[i]!);
      this.lossMask.push(1);
      this.logProbs.push(generated.logProbs[i]!);
      this.entropies.push(generated.entropies[i]!);
    }
  }

  appendObservation(ids: Int32Array): void {
    for (const id of ids) {
      this.ids.push(id);
      this.lossMask.push(0);
      this.logProbs.push(0);
      this.entropies.push(0);
    }
    this.segmentStart = this.ids.length;
  }

  prefix(): Int32Array {
    const prefix = new Int32Array(this.prompt.promptIds.length + this.ids.length);
    prefix.set(this.prompt.promptIds);
    prefix.set(this.ids, this.prompt.promptIds.length);
    return prefix;
  }

  toTrajectory(tokenizer: Tokenizer): Trajectory {
    const responseIds = Int32Array.from(this.ids);
    return {
      groupId: this.prompt.groupId,
      promptIds: this.prompt.promptIds,
      responseIds,
      lossMask: Uint8Array.from(this.lossMask),
      oldLogProbs: Float32Array.from(this.logProbs),
      entropies: Float32Array.from(this.entropies),
      toolCalls: this.toolCalls,
      reward: 0,
      correct: false,
      truncated: this.truncated,
      text: tokenizer.decode(responseIds),
    };
  }
}

/** Runs async work one at a time (one model), accumulating the time spent inside it. */
class SerialModel {
  busyMs = 0;
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        this.busyMs += performance.now() - started;
      }
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * Multi-turn tool-integrated rollout of a batch (ALGORITHMS.md section 1): generate until a tool stop string or
 * EOS; parse the call; execute it while other lanes generate; append the observation, tokenized as untrusted
 * text, with lossMask 0; repeat up to maxTurns and the length budget. Records per policy token the sampled
 * log-prob and the entropy of the full distribution.
 */
export async function rollout(
  policy: Policy,
  tokenizer: Tokenizer,
  tools: ToolEnvironment,
  prompts: readonly RolloutPrompt[],
  options: RolloutOptions,
): Promise<RolloutResult> {
  const started = performance.now();
  const model = new SerialModel();
  const builders = prompts.map((prompt) => new ResponseBuilder(prompt));
  let sandboxBusyMs = 0;
  let generatedTokens = 0;
  const decode = (ids: Int32Array) => tokenizer.decode(ids);

  const runTool = async (builder: ResponseBuilder, code: string): Promise<void> => {
    const outcome = await tools.execute(code);
    sandboxBusyMs += outcome.durationMs;
    const observation = tokenizer.encodeUntrusted(outcome.observation);
    const room = options.maxResponseTokens - builder.ids.length;
    const startToken = builder.ids.length;
    builder.appendObservation(observation.length <= room ? observation : observation.subarray(0, room));
    builder.toolCalls.push({
      status: outcome.status,
      startToken,
      endToken: builder.ids.length,
      code,
      output: outcome.observation,
    });
    if (observation.length >= room) {
      builder.truncated = true;
      builder.done = true;
    }
  };

  /** Appends one generated continuation and decides what happens next; returns the code to run, if any. */
  const advance = (builder: ResponseBuilder, generated: GeneratedSequence): string | null => {
    const room = options.maxResponseTokens - builder.ids.length;
    const kept = Math.min(room, generated.tokens.length);
    builder.appendPolicyTokens(generated, kept);
    generatedTokens += kept;
    if (kept < generated.tokens.length || generated.finishReason === 'length') {
      builder.truncated = true;
      builder.done = true;
      return null;
    }
    if (generated.finishReason === 'stop_token') {
      builder.done = true;
      return null;
    }
    const segment = tokenizer.decode(Int32Array.from(builder.ids.slice(builder.segmentStart)));
    const code = tools.parse(segment);
    if (
      code === null ||
      builder.toolCalls.length >= options.maxTurns ||
      builder.ids.length >= options.maxResponseTokens
    ) {
      builder.done = true;
      return null;
    }
    return code;
  };

  const runLane = async (lane: readonly ResponseBuilder[], laneIndex: number): Promise<void> => {
    for (let turn = 0; ; turn++) {
      const active = lane.filter((builder) => !builder.done);
      if (active.length === 0) return;
      const prefixes = active.map((builder) => builder.prefix());
      const longest = Math.max(...prefixes.map((prefix) => prefix.length));
      const maxNewTokens = Math.min(
        Math.max(...active.map((builder) => options.maxResponseTokens - builder.ids.length)),
        policy.maxSequenceLength - longest,
      );
      if (maxNewTokens <= 0) {
        for (const builder of active) {
          builder.truncated = true;
          builder.done = true;
        }
        return;
      }
      const generated = await model.run(() =>
        policy.generate(prefixes, {
          ...options.sampling,
          maxNewTokens,
          stopTokenIds: [tokenizer.eosTokenId],
          stopStrings: tools.stopStrings,
          decode,
          seed: deriveSeed(options.seed, 'rollout', laneIndex, turn),
        }),
      );
      const calls: Promise<void>[] = [];
      active.forEach((builder, i) => {
        const code = advance(builder, generated[i]!);
        if (code !== null) calls.push(runTool(builder, code));
      });
      await Promise.all(calls);
    }
  };

  const laneCount = Math.max(1, Math.min(options.lanes, builders.length));
  const lanes = Array.from({ length: laneCount }, (_, lane) =>
    builders.filter((_, index) => index % laneCount === lane),
  );
  await Promise.all(lanes.map((lane, index) => runLane(lane, index)));

  const wallMs = performance.now() - started;
  return {
    trajectories: builders.map((builder) => builder.toTrajectory(tokenizer)),
    timing: {
      wallMs,
      generationMs: model.busyMs,
      sandboxMs: Math.max(0, wallMs - model.busyMs),
      sandboxBusyMs,
      generatedTokens,
    },
  };
}
