import type { Trajectory } from '@taorl/data';
import { toolUseOf } from '@taorl/eval';
import { isInfraFailure } from '@taorl/filter';

/** Summary statistics of a set of graded trajectories (the rollout half of a metrics line). */
export interface RolloutStats {
  /** Mean shaped reward over all generated trajectories. */
  reward: number;
  /** Share of generated trajectories whose final answer is correct. */
  accuracy: number;
  /**
   * Successful calls / calls that reached the program (1 when there were none): a call that failed in the sandbox
   * itself is not the program's failure and counts in `toolInfraFailureRate` instead.
   */
  toolSuccessRate: number;
  /** Calls that failed in the sandbox itself (`sandbox_error`, after the trainer's retries) / all calls. */
  toolInfraFailureRate: number;
  /** Trajectories with >= 1 successful call / trajectories with >= 1 call that reached the program (1 when none). */
  validCodeRatio: number;
  toolCallsPerTrajectory: number;
  /**
   * Share of trajectories that made tool calls, all of which failed, and still answered right: what TAO-RL's C1
   * (execution validity) removes although the reward is 1.
   */
  allFailedCorrect: number;
  /**
   * Share of trajectories that answered right although at least one of their calls failed in the program
   * (rStar2-Agent's "tool errors in correct trajectories", what resample-on-correct trains away).
   */
  correctWithToolError: number;
  /**
   * Share of trajectories that answered right without a successful call (no call, or only failed ones): right
   * without a valid execution, the lucky answers of the chain-tool task (C1 removes those that made calls).
   */
  unexecutedCorrect: number;
  /**
   * Calls per trajectory that did not advance the solution: calls that failed in the program, and successful
   * calls repeating the code of an earlier successful call of the same trajectory.
   */
  wastedCallsPerTrajectory: number;
  responseTokens: number;
  truncatedRate: number;
  /** Mean rollout entropy over policy tokens. */
  entropy: number;
  policyTokens: number;
}

/** Failed calls (outages aside: not the program's) and successful calls repeating an earlier successful call. */
function wastedCallsOf(calls: Trajectory['toolCalls']): number {
  const done = new Set<string>();
  let wasted = 0;
  for (const call of calls) {
    if (isInfraFailure(call)) continue;
    if (call.status !== 'ok' || done.has(call.code)) wasted++;
    else done.add(call.code);
  }
  return wasted;
}

export function rolloutStats(trajectories: readonly Trajectory[]): RolloutStats {
  let reward = 0;
  let correct = 0;
  let calls = 0;
  let infraFailures = 0;
  let okCalls = 0;
  let calling = 0;
  let validCalling = 0;
  let allFailedCorrect = 0;
  let correctWithToolError = 0;
  let unexecutedCorrect = 0;
  let wastedCalls = 0;
  let tokens = 0;
  let truncated = 0;
  let entropySum = 0;
  let policyTokens = 0;
  for (const t of trajectories) {
    reward += t.reward;
    if (t.correct) correct++;
    if (t.truncated) truncated++;
    tokens += t.responseIds.length;
    const { toolCalls, toolFailures } = toolUseOf(t.toolCalls);
    const ok = toolCalls - toolFailures;
    const outages = t.toolCalls.filter(isInfraFailure).length;
    calls += toolCalls;
    infraFailures += outages;
    okCalls += ok;
    if (t.correct && toolFailures > outages) correctWithToolError++;
    if (t.correct && ok === 0) unexecutedCorrect++;
    wastedCalls += wastedCallsOf(t.toolCalls);
    if (toolCalls > outages) {
      calling++;
      if (ok > 0) validCalling++;
      else if (t.correct) allFailedCorrect++;
    }
    t.lossMask.forEach((m, i) => {
      if (m !== 0) {
        policyTokens++;
        entropySum += t.entropies[i]!;
      }
    });
  }
  const n = Math.max(1, trajectories.length);
  return {
    reward: reward / n,
    accuracy: correct / n,
    toolSuccessRate: calls === infraFailures ? 1 : okCalls / (calls - infraFailures),
    toolInfraFailureRate: calls === 0 ? 0 : infraFailures / calls,
    validCodeRatio: calling === 0 ? 1 : validCalling / calling,
    toolCallsPerTrajectory: calls / n,
    allFailedCorrect: allFailedCorrect / n,
    correctWithToolError: correctWithToolError / n,
    unexecutedCorrect: unexecutedCorrect / n,
    wastedCallsPerTrajectory: wastedCalls / n,
    responseTokens: tokens / n,
    truncatedRate: truncated / n,
    entropy: policyTokens === 0 ? 0 : entropySum / policyTokens,
    policyTokens,
  };
}
