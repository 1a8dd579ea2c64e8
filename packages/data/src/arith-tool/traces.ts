import { ChatTemplate } from '../chat/template';
import type { Tokenizer } from '../tokenizer/types';
import type { CodeResult, CodeRunner, ToolCallFormat } from '../tool-runner';
import { ResponseBuilder } from '../trajectory/response-builder';
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

export interface ArithTraceOptions {
  /** Where the code runs: a @taorl/sandbox Sandbox, for example. */
  sandbox: CodeRunner;
  /** The tool format the traces are written in: @taorl/sandbox's markdownFormat (the calls are markdown). */
  format: ToolCallFormat;
  tokenizer: Tokenizer;
  /** Renders the prompt; default the embedded template. */
  template?: ChatTemplate;
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
  /** Observation budget in characters (the sandbox format's default when absent). */
  maxObservationChars?: number;
  /** Problems solved at once (each problem's calls run in order). Default 8. */
  concurrency?: number;
}

/** Ways a first attempt goes wrong; each produces a real Python exception. */
const MISTAKES: ReadonlyArray<(code: string) => string> = [
  // A typo in the function name: NameError.
  (code) => code.replace('print(', 'prnt('),
  // A missing closing parenthesis: SyntaxError.
  (code) => code.slice(0, -1),
  // Parsing the expression as a number instead of evaluating it: ValueError.
  (code) => `print(int('${code.slice('print('.length, -1).replace(/'/g, '')}'))`,
];

/** A leftover line after the result is printed: NameError, with the result already in the output. */
const failAfterPrint = (code: string) => `${code}\nprint(result)`;

/** The markdown format's call: the code block, then the output opener at which generation stops. */
function callText(code: string, format: ToolCallFormat): string {
  return `\`\`\`python\n${code}\n\`\`\`\n${format.stopStrings[0]}`;
}

function answerText(answer: string): string {
  return `A: \\boxed{${answer}}`;
}

function fillOutputs(step: string, outputs: readonly string[]): string {
  return step.replace(/\{(\d+)\}/g, (_, index: string) => {
    const output = outputs[Number(index)];
    if (output === undefined)
      throw new Error(`arith-tool: step refers to output {${index}} that does not exist yet`);
    return output;
  });
}

interface ArithPlan {
  problem: ArithProblem;
  strategy: ArithStrategy;
  /** How a failed first call breaks the step's code (a MISTAKES entry, or failAfterPrint). */
  mistake: (code: string) => string;
}

async function solve({ problem, strategy, mistake }: ArithPlan, options: ArithTraceOptions) {
  const { tokenizer, sandbox, format } = options;
  const renderOptions =
    options.maxObservationChars === undefined ? {} : { maxChars: options.maxObservationChars };
  const builder = new ResponseBuilder();
  const call = async (code: string): Promise<CodeResult> => {
    const text = callText(code, format);
    // The rollout engine will parse the same text with the same format; a trace it cannot parse is useless.
    if (format.parse(text)?.code !== code)
      throw new Error(`arith-tool: the markdown format does not parse ${JSON.stringify(text)}`);
    builder.appendPolicy(tokenizer.encode(text));
    const result = await sandbox.run({ code });
    const observation = format.render(result, renderOptions);
    builder.appendObservation(tokenizer.encodeUntrusted(observation), {
      status: result.status,
      code,
      output: observation,
    });
    return result;
  };

  let answer = problem.answer;
  if (strategy !== 'direct') {
    const outputs: string[] = [];
    for (const [index, step] of problem.steps.entries()) {
      const code = fillOutputs(step, outputs);
      if (index === 0 && (strategy === 'recovered' || strategy === 'gave-up')) {
        const failed = await call(mistake(code));
        if (failed.status !== 'error') {
          throw new Error(
            `arith-tool: the deliberate mistake in ${problem.id} ended with status ${failed.status}, not error`,
          );
        }
        if (strategy === 'gave-up') break;
      }
      const result = await call(code);
      if (result.status !== 'ok') {
        throw new Error(
          `arith-tool: reference code of ${problem.id} failed (${result.status}): ${result.stderr.trim()}`,
        );
      }
      outputs.push(result.stdout.trim());
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
  builder.appendPolicy([...tokenizer.encode(answerText(answer)), tokenizer.eosTokenId]);
  return { response: builder.build(), correct: answer === problem.answer };
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
  for (const [name, share] of [
    ['directShare', directShare],
    ['mistakeShare', mistakeShare],
    ['giveUpShare', giveUpShare],
    ['failedAfterPrintShare', failedAfterPrintShare],
    ['stopEarlyShare', stopEarlyShare],
  ] as const) {
    for (const [where, value] of typeof share === 'number' ? [['', share] as const] : Object.entries(share)) {
      if (!(typeof value === 'number' && value >= 0 && value <= 1))
        throw new RangeError(
          `generateArithTraces: ${name}${where === '' ? '' : `[${where}]`} must be in [0, 1], got ${value}`,
        );
    }
  }
  const template = options.template ?? ChatTemplate.embedded();
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
    const mistake = MISTAKES[rng.int(0, MISTAKES.length - 1)]!;
    const afterPrint = strategy === 'gave-up' && draw(at(failedAfterPrintShare));
    return { problem, strategy, mistake: afterPrint ? failAfterPrint : mistake };
  });
  const traces: ArithTrace[] = new Array(plans.length);
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const index = next++;
      const plan = plans[index] as ArithPlan;
      const { problem, strategy } = plan;
      const { response, correct } = await solve(plan, options);
      const prompt = template.render([{ role: 'user', content: arithUserMessage(problem) }], {
        addGenerationPrompt: true,
      });
      traces[index] = {
        groupId: problem.id,
        promptIds: options.tokenizer.encode(prompt),
        ...response,
        reward: correct ? 1 : 0,
        correct,
        truncated: false,
        text: options.tokenizer.decode(response.responseIds),
        strategy,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  return traces;
}
