import {
  CODE_MISTAKES,
  checkShares,
  type DemoEnvironment,
  type DemoPlan,
  DemoWriter,
  failAfterPrint,
  fillOutputs,
  writeDemonstrations,
} from '../demonstrations/demo-writer';
import type { Trajectory } from '../trajectory/types';
import { type ArithShare, shareAt } from './mixes';
import { type ArithProblem, arithUserMessage } from './problems';
import { Rng } from './rng';

/**
 * How a demonstration solves its problem: `direct` answers without code (right on easy problems, a habit RL
 * should unlearn on hard ones), `tool` calls Python for each step, `recovered` first writes code that fails,
 * reads the traceback and fixes it, `gave-up` writes code that fails and then answers without another call (read
 * from the failed call's output when the code printed the result before failing, otherwise from the head),
 * `stopped-early` makes the first of two needed calls and answers with its output (a wrong answer).
 */
export type ArithStrategy = 'direct' | 'tool' | 'recovered' | 'gave-up' | 'stopped-early';

/** An SFT demonstration: a complete Trajectory whose tool outputs are real sandbox outputs. */
export interface ArithTrace extends Trajectory {
  strategy: ArithStrategy;
}

export interface ArithTraceOptions extends DemoEnvironment {
  seed: number;
  /** Share of demonstrations that answer without code (one number, or one per level). Default 0.2. */
  directShare?: ArithShare;
  /** Share of tool demonstrations whose first call fails. Default 0.25. */
  mistakeShare?: ArithShare;
  /** Share of failed first calls after which the demonstration gives up and answers without code. Default 0. */
  giveUpShare?: ArithShare;
  /**
   * Share of give-ups whose failed code printed the result before failing (a leftover line after the print): the
   * demonstration reads its answer from the output, right although its only call failed, which is what TAO-RL's
   * C1 filter removes. Default 0.
   */
  failedAfterPrintShare?: ArithShare;
  /**
   * Share of the other tool demonstrations of multi-call problems that stop after the first call and answer
   * with its output. Default 0.
   */
  stopEarlyShare?: ArithShare;
}

interface ArithPlan extends DemoPlan {
  problem: ArithProblem;
  strategy: ArithStrategy;
  /** How a failed first call breaks the step's code (a CODE_MISTAKES entry, or failAfterPrint). */
  mistake: (code: string) => string;
}

async function solve({ problem, strategy, mistake }: ArithPlan, options: ArithTraceOptions) {
  const writer = new DemoWriter(options, 'arith-tool');
  let answer = problem.answer;
  if (strategy !== 'direct') {
    const outputs: string[] = [];
    for (const [index, step] of problem.steps.entries()) {
      const code = fillOutputs(step, outputs, 'arith-tool');
      if (index === 0 && (strategy === 'recovered' || strategy === 'gave-up')) {
        await writer.mistake(mistake(code), problem.id);
        if (strategy === 'gave-up') break;
      }
      outputs.push(await writer.reference(code, problem.id));
      if (strategy === 'stopped-early') break;
    }
    if (strategy === 'stopped-early') answer = outputs[0]!;
    // The gold is computed with BigInt; Python must agree, or the generator has a bug.
    else if (strategy !== 'gave-up' && outputs.at(-1) !== problem.answer) {
      throw new Error(
        `arith-tool: Python printed ${outputs.at(-1)} for ${problem.id} but the gold is ${problem.answer}`,
      );
    }
  }
  return { response: writer.answer(answer), correct: answer === problem.answer, extra: { strategy } };
}

/**
 * Real end-to-end SFT demonstrations for arith-tool problems: the code of each step is executed by the sandbox
 * and its actual output (or traceback) is inserted with lossMask 0, exactly as a rollout would insert it. The
 * strategy of each trace is drawn from `seed`, so the same problems and seed give the same traces.
 */
export async function generateArithTraces(
  problems: readonly ArithProblem[],
  options: ArithTraceOptions,
): Promise<ArithTrace[]> {
  const {
    directShare = 0.2,
    mistakeShare = 0.25,
    giveUpShare = 0,
    failedAfterPrintShare = 0,
    stopEarlyShare = 0,
  } = options;
  checkShares('generateArithTraces', [
    ['directShare', directShare],
    ['mistakeShare', mistakeShare],
    ['giveUpShare', giveUpShare],
    ['failedAfterPrintShare', failedAfterPrintShare],
    ['stopEarlyShare', stopEarlyShare],
  ]);
  const rng = new Rng(options.seed);
  // Draw every choice up front, in problem order, so concurrency cannot change them. A share of 0 draws nothing,
  // so the classic mix's traces stay what they were.
  const draw = (share: number) => share > 0 && rng.chance(share);
  const plans = problems.map((problem): ArithPlan => {
    const at = (share: ArithShare) => shareAt(share, problem.level);
    let strategy: ArithStrategy = rng.chance(at(directShare))
      ? 'direct'
      : rng.chance(at(mistakeShare))
        ? 'recovered'
        : 'tool';
    if (strategy === 'recovered' && draw(at(giveUpShare))) strategy = 'gave-up';
    else if (strategy === 'tool' && problem.steps.length > 1 && draw(at(stopEarlyShare)))
      strategy = 'stopped-early';
    const mistake = CODE_MISTAKES[rng.int(0, CODE_MISTAKES.length - 1)]!;
    const afterPrint = strategy === 'gave-up' && draw(at(failedAfterPrintShare));
    return {
      problem,
      userMessage: arithUserMessage(problem),
      strategy,
      mistake: afterPrint ? failAfterPrint : mistake,
    };
  });
  return writeDemonstrations(plans, options, (plan) => solve(plan, options));
}
