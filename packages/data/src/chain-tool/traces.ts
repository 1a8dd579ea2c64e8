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
 * - `wrong-branch`: takes the wrong branch at the check (calls although the value is even, or answers although it
 *   is odd): wrong unless the problem is lucky;
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
  /** Share of the remaining (tool) demonstrations of problems with a check that take the wrong branch. Default 0.4. */
  wrongBranchShare: number;
}

export const DEFAULT_CHAIN_TRACE_SHARES: Readonly<ChainTraceShares> = {
  directShare: 0.15,
  giveUpShare: 0.15,
  mistakeShare: 0.15,
  redundantShare: 0.15,
  wrongBranchShare: 0.4,
};

export interface ChainTraceOptions extends DemoEnvironment, Partial<ChainTraceShares> {
  seed: number;
  /**
   * The model's context in tokens (prompt + response). A demonstration with a wasted call or a wrong branch that
   * would not fit is written as `tool` instead (on the longest chains a wasted call does not fit: it costs the
   * answer); one whose tool solution does not fit is an error. Default 512, the embedded model's.
   */
  contextTokens?: number;
}

interface ChainPlan extends DemoPlan {
  problem: ChainProblem;
  strategy: ChainStrategy;
  /** The call that fails (recovered) or is repeated (redundant), and how a failing call is broken. */
  at: number;
  mistake: (code: string) => string;
}

/** The calls a plan makes, in order: the problem's steps, with the check's branch flipped for `wrong-branch`. */
function callsOf({ problem, strategy }: ChainPlan): string[] {
  if (strategy !== 'wrong-branch' || problem.checkStep === null) return problem.steps;
  const { code, at } = problem.checkStep;
  return problem.check === 'fired'
    ? [...problem.steps.slice(0, at), ...problem.steps.slice(at + 1)]
    : [...problem.steps.slice(0, at), code, ...problem.steps.slice(at)];
}

async function write(plan: ChainPlan, env: DemoEnvironment) {
  const { problem, strategy, at, mistake } = plan;
  const writer = new DemoWriter(env, 'chain-tool');
  if (strategy === 'direct') return { response: writer.answer(problem.answer), correct: true };
  let output = '';
  for (const [index, step] of callsOf(plan).entries()) {
    // Every step reads the output of the call before it.
    const code = step.replace(/\{\d+\}/g, output);
    if (strategy === 'gave-up') {
      await writer.mistake(mistake(code), problem.id);
      return { response: writer.answer(problem.answer), correct: true };
    }
    if (strategy === 'recovered' && index === at) await writer.mistake(mistake(code), problem.id);
    output = await writer.reference(code, problem.id);
    if (strategy === 'redundant' && index === at) output = await writer.reference(code, problem.id);
  }
  // The gold is computed in the generator; Python must agree, or the generator has a bug.
  if (strategy !== 'wrong-branch' && output !== problem.answer) {
    throw new Error(
      `chain-tool: Python printed ${output} for ${problem.id} but the gold is ${problem.answer}`,
    );
  }
  return { response: writer.answer(output), correct: output === problem.answer };
}

async function solve(plan: ChainPlan, promptTokens: number, options: ChainTraceOptions) {
  const context = options.contextTokens ?? 512;
  const written = await write(plan, options);
  const fits = promptTokens + written.response.responseIds.length <= context;
  if (fits) return { ...written, extra: { strategy: plan.strategy } };
  if (plan.strategy === 'tool' || plan.strategy === 'direct')
    throw new Error(
      `chain-tool: the tool solution of ${plan.problem.id} takes ${promptTokens} + ` +
        `${written.response.responseIds.length} tokens, more than contextTokens ${context}: lower maxSteps or ` +
        'tool.observationChars',
    );
  return solve({ ...plan, strategy: 'tool' }, promptTokens, options);
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
  const { directShare, giveUpShare, mistakeShare, redundantShare, wrongBranchShare } = shares;
  if (directShare + giveUpShare + mistakeShare + redundantShare > 1)
    throw new RangeError(
      'generateChainTraces: directShare + giveUpShare + mistakeShare + redundantShare must be at most 1, got ' +
        `${directShare + giveUpShare + mistakeShare + redundantShare}`,
    );
  const rng = new Rng(options.seed);
  // Every draw is made for every problem, in problem order, so concurrency and shares of 0 change nothing else.
  const plans = problems.map((problem): ChainPlan => {
    const draw = rng.next();
    const wrongBranch = rng.chance(wrongBranchShare);
    const at = rng.int(0, problem.steps.length - 1);
    const mistake = CODE_MISTAKES[rng.int(0, CODE_MISTAKES.length - 1)]!;
    const strategy: ChainStrategy =
      draw < directShare
        ? 'direct'
        : draw < directShare + giveUpShare
          ? 'gave-up'
          : draw < directShare + giveUpShare + mistakeShare
            ? 'recovered'
            : draw < directShare + giveUpShare + mistakeShare + redundantShare
              ? 'redundant'
              : problem.check !== 'none' && wrongBranch
                ? 'wrong-branch'
                : 'tool';
    return { problem, userMessage: arithUserMessage(problem), strategy, at, mistake };
  });
  return writeDemonstrations(plans, options, (plan, promptTokens) => solve(plan, promptTokens, options));
}
