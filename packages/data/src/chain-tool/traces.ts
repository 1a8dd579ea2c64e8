import { arithUserMessage } from '../arith-tool/problems';
import { Rng } from '../arith-tool/rng';
import {
  CODE_MISTAKES,
  checkShares,
  type DemoEnvironment,
  type DemoPlan,
  DemoWriter,
  writeDemonstrations,
} from '../demonstrations/demo-writer';
import type { Trajectory } from '../trajectory/types';
import type { ChainProblem } from './problems';

/**
 * How a chain-tool demonstration solves its problem:
 * - `direct`: answers without code (right only where the answer is on the question's surface: lucky problems);
 * - `gave-up`: its first call fails, and it answers without another call, from the head (right only on lucky
 *   problems: right with every call failed, what C1 removes);
 * - `recovered`: one call fails (at a drawn step) and the next fixes it: one wasted call;
 * - `redundant`: runs one step's call twice: one wasted call;
 * - `wrong-branch`: a tool demonstration that misread a parity in the loop at least once (a call too many or too
 *   few): wrong unless the problem is lucky;
 * - `tool`: one call per step.
 */
export type ChainStrategy = 'direct' | 'gave-up' | 'recovered' | 'redundant' | 'wrong-branch' | 'tool';

export const CHAIN_STRATEGIES: readonly ChainStrategy[] = [
  'direct',
  'gave-up',
  'recovered',
  'redundant',
  'wrong-branch',
  'tool',
];

/** An SFT demonstration: a complete Trajectory whose tool outputs are real sandbox outputs. */
export interface ChainTrace extends Trajectory {
  strategy: ChainStrategy;
}

/** The shares of the demonstration strategies (what habits the SFT policy starts RL with). */
export interface ChainTraceShares {
  /** Share of all demonstrations answering without code. Default 0.15. */
  directShare: number;
  /** Share of all demonstrations that give up after a failed first call. Default 0.15. */
  giveUpShare: number;
  /** Share of all demonstrations with one failed call, then its fix. Default 0.15. */
  mistakeShare: number;
  /** Share of all demonstrations that repeat one call. Default 0.15. */
  redundantShare: number;
  /**
   * Chance, at each decision of a loop (call again or answer) in every demonstration that runs code, of taking the
   * wrong branch: the uncertainty the SFT policy carries into RL at the post-tool decision points. Default 0.3.
   */
  misreadShare: number;
}

export const DEFAULT_CHAIN_TRACE_SHARES: Readonly<ChainTraceShares> = {
  directShare: 0.15,
  giveUpShare: 0.15,
  mistakeShare: 0.15,
  redundantShare: 0.15,
  misreadShare: 0.3,
};

export interface ChainTraceOptions extends DemoEnvironment, Partial<ChainTraceShares> {
  seed: number;
  /**
   * The model's context in tokens (prompt + response). A demonstration with a wasted call or a misread that would
   * not fit is written as `tool` instead (on the longest chains a wasted call does not fit: it costs the answer);
   * one whose tool solution does not fit is an error. Default 512, the embedded model's.
   */
  contextTokens?: number;
}

type BaseStrategy = Exclude<ChainStrategy, 'wrong-branch'>;

interface ChainPlan extends DemoPlan {
  problem: ChainProblem;
  strategy: BaseStrategy;
  /** The call before the loop that fails (recovered) or is repeated (redundant), and how a failing call is broken. */
  at: number;
  mistake: (code: string) => string;
  /** At the loop's k-th decision, whether the demonstration takes the wrong branch. */
  misreads: readonly boolean[];
}

/** The strategy a uniform draw in [0, 1) falls on: the shares in table order, then `tool`. */
function strategyOf(draw: number, shares: ChainTraceShares): BaseStrategy {
  let bound = 0;
  for (const [strategy, share] of [
    ['direct', shares.directShare],
    ['gave-up', shares.giveUpShare],
    ['recovered', shares.mistakeShare],
    ['redundant', shares.redundantShare],
  ] as const) {
    bound += share;
    if (draw < bound) return strategy;
  }
  return 'tool';
}

/** Every step reads the output of the call before it. */
const withInput = (step: string, output: string) => step.replace('{x}', output);

async function write(plan: ChainPlan, env: DemoEnvironment) {
  const { problem, strategy, at, mistake, misreads } = plan;
  const writer = new DemoWriter(env, 'chain-tool');
  if (strategy === 'direct')
    return { response: writer.answer(problem.answer), correct: true, misread: false };
  if (strategy === 'gave-up') {
    await writer.mistake(mistake(problem.steps[0]!), problem.id);
    return { response: writer.answer(problem.answer), correct: true, misread: false };
  }
  let output = '';
  let calls = 0;
  const step = async (template: string) => {
    const code = withInput(template, output);
    if (strategy === 'recovered' && calls === at) await writer.mistake(mistake(code), problem.id);
    output = await writer.reference(code, problem.id);
    if (strategy === 'redundant' && calls === at) output = await writer.reference(code, problem.id);
    calls++;
  };
  const { loop } = problem;
  const loopAt = loop?.at ?? problem.steps.length;
  for (const template of problem.steps.slice(0, loopAt)) await step(template);
  let misread = false;
  if (loop !== null) {
    // A misread past the gold's iterations goes on until a parity is read right, or two calls past the solution.
    for (let decision = 0; calls < problem.steps.length + 2; decision++) {
      const wrong = misreads[decision] ?? false;
      misread ||= wrong;
      if ((Number(output) % 2 === 1) === wrong) break;
      await step(loop.code);
    }
  }
  for (const template of problem.steps.slice(loopAt + (loop?.iterations ?? 0))) await step(template);
  // The gold is computed in the generator; Python must agree, or the generator has a bug.
  if (!misread && output !== problem.answer) {
    throw new Error(
      `chain-tool: Python printed ${output} for ${problem.id} but the gold is ${problem.answer}`,
    );
  }
  return { response: writer.answer(output), correct: output === problem.answer, misread };
}

async function solve(plan: ChainPlan, promptTokens: number, options: ChainTraceOptions) {
  const context = options.contextTokens ?? 512;
  const { response, correct, misread } = await write(plan, options);
  if (promptTokens + response.responseIds.length <= context) {
    const strategy: ChainStrategy = misread && plan.strategy === 'tool' ? 'wrong-branch' : plan.strategy;
    return { response, correct, extra: { strategy } };
  }
  if ((plan.strategy === 'tool' && !misread) || plan.strategy === 'direct')
    throw new Error(
      `chain-tool: the tool solution of ${plan.problem.id} takes ${promptTokens} + ${response.responseIds.length} ` +
        `tokens, more than contextTokens ${context}: lower maxCalls or tool.observationChars`,
    );
  return solve({ ...plan, strategy: 'tool', misreads: [] }, promptTokens, options);
}

/**
 * Real end-to-end SFT demonstrations of chain-tool problems, written as arith-tool's are (every call executed by
 * the sandbox, its real output inserted with lossMask 0). Each problem's strategy, the call a mistake or a repeat
 * lands on, and the mistake are drawn from `seed` up front, so the same problems and seed give the same traces.
 */
export async function generateChainTraces(
  problems: readonly ChainProblem[],
  options: ChainTraceOptions,
): Promise<ChainTrace[]> {
  const shares: ChainTraceShares = { ...DEFAULT_CHAIN_TRACE_SHARES };
  for (const name of Object.keys(shares) as Array<keyof ChainTraceShares>) {
    const value = options[name];
    if (value !== undefined) shares[name] = value;
  }
  checkShares('generateChainTraces', Object.entries(shares));
  const { directShare, giveUpShare, mistakeShare, redundantShare, misreadShare } = shares;
  if (directShare + giveUpShare + mistakeShare + redundantShare > 1)
    throw new RangeError(
      'generateChainTraces: directShare + giveUpShare + mistakeShare + redundantShare must be at most 1, got ' +
        `${directShare + giveUpShare + mistakeShare + redundantShare}`,
    );
  const rng = new Rng(options.seed);
  // Every draw is made for every problem, in problem order, so concurrency and shares of 0 change nothing else.
  const plans = problems.map((problem): ChainPlan => {
    const draw = rng.next();
    // Before the loop, so the call is made whatever the demonstration reads from the outputs.
    const at = rng.int(0, (problem.loop?.at ?? problem.steps.length) - 1);
    const mistake = CODE_MISTAKES[rng.int(0, CODE_MISTAKES.length - 1)]!;
    const misreads = Array.from({ length: problem.steps.length + 2 }, () => rng.chance(misreadShare));
    return {
      problem,
      userMessage: arithUserMessage(problem),
      strategy: strategyOf(draw, shares),
      at,
      mistake,
      misreads,
    };
  });
  return writeDemonstrations(plans, options, (plan, promptTokens) => solve(plan, promptTokens, options));
}
