import type { RlStepMetrics } from '../../src/index.js';

/** One RL metrics line with fixed values except the step and reward, for report tests. */
export function rlLine(step: number, reward: number): RlStepMetrics {
  return {
    phase: 'rl',
    step,
    reward,
    accuracy: reward,
    toolSuccessRate: 0.9,
    toolInfraFailureRate: 0,
    validCodeRatio: 0.95,
    toolCallsPerTrajectory: 1.1,
    allFailedCorrect: 0.01,
    correctWithToolError: 0.02,
    unexecutedCorrect: 0.03,
    wastedCallsPerTrajectory: 0.1,
    responseTokens: 80,
    truncatedRate: 0,
    filterDrops: { all_tool_calls_failed: step, all_correct: 2 },
    trajectoriesKept: 40,
    groupsKept: 5,
    genBatches: 1,
    entropy: 0.4,
    bonus: { tokens: 12, mean: 0.05, max: 0.2 },
    loss: 0.01,
    clipFracLow: 0.01,
    clipFracHigh: 0.02,
    approxKl: 0.001,
    gradNorm: 0.7,
    tokensPerSecond: 1500,
    time: { generationMs: 800, sandboxMs: 200, scoringMs: 20, trainingMs: 900, totalMs: 1950 },
  };
}

/** An RL metrics line with neutral values; each test sets what it checks. */
export function neutralRlLine(step: number, fields: Partial<RlStepMetrics> = {}): RlStepMetrics {
  return {
    phase: 'rl',
    step,
    reward: 0.5,
    accuracy: 0.5,
    toolSuccessRate: 1,
    toolInfraFailureRate: 0,
    validCodeRatio: 1,
    toolCallsPerTrajectory: 1,
    allFailedCorrect: 0,
    correctWithToolError: 0,
    unexecutedCorrect: 0,
    wastedCallsPerTrajectory: 0,
    responseTokens: 80,
    truncatedRate: 0,
    entropy: 0.1,
    loss: 0,
    clipFracLow: 0,
    clipFracHigh: 0,
    approxKl: 0,
    gradNorm: 1,
    filterDrops: {},
    trajectoriesKept: 8,
    groupsKept: 2,
    genBatches: 1,
    bonus: { tokens: 0, mean: 0, max: 0 },
    tokensPerSecond: 1,
    time: { generationMs: 0, sandboxMs: 0, scoringMs: 0, trainingMs: 0, totalMs: 1000 },
    ...fields,
  };
}
