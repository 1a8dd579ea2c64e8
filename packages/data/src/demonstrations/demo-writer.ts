import { ChatTemplate } from '../chat/template';
import type { Tokenizer } from '../tokenizer/types';
import type { CodeResult, CodeRunner, ToolCallFormat } from '../tool-runner';
import { ResponseBuilder } from '../trajectory/response-builder';
import type { Trajectory } from '../trajectory/types';

/** What writing a demonstration needs: where the code runs, the tool format, the tokenizer and the template. */
export interface DemoEnvironment {
  /** Where the code runs: a @taorl/sandbox Sandbox, for example. */
  sandbox: CodeRunner;
  /** The tool format the traces are written in: @taorl/sandbox's markdownFormat (the calls are markdown). */
  format: ToolCallFormat;
  tokenizer: Tokenizer;
  /** Renders the prompt; default the embedded template. */
  template?: ChatTemplate;
  /** Observation budget in characters (the sandbox format's default when absent). */
  maxObservationChars?: number;
  /** Problems solved at once (each problem's calls run in order). Default 8. */
  concurrency?: number;
  /**
   * Called each time a demonstration is written (in completion order, `done` counting 1 to `total`): running every
   * demonstration's code can take an hour on a slow sandbox, and this is how a caller shows that it moves.
   */
  onProgress?: (progress: DemoProgress) => void;
}

/** How many of a generator's demonstrations are written. */
export interface DemoProgress {
  /** Demonstrations written so far, 1 to `total`. */
  done: number;
  /** Demonstrations to write: one per problem. */
  total: number;
}

/** Ways a first attempt goes wrong; each produces a real Python exception. */
export const CODE_MISTAKES: ReadonlyArray<(code: string) => string> = [
  // A typo in the function name: NameError.
  (code) => code.replace('print(', 'prnt('),
  // A missing closing parenthesis: SyntaxError.
  (code) => code.slice(0, -1),
  // Parsing the expression as a number instead of evaluating it: ValueError.
  (code) => `print(int('${code.slice('print('.length, -1).replace(/'/g, '')}'))`,
];

/** A leftover line after the result is printed: NameError, with the result already in the output. */
export const failAfterPrint = (code: string) => `${code}\nprint(result)`;

/** A reference step with "{i}" replaced by the printed output of step i. */
export function fillOutputs(step: string, outputs: readonly string[], label: string): string {
  return step.replace(/\{(\d+)\}/g, (_, index: string) => {
    const output = outputs[Number(index)];
    if (output === undefined)
      throw new Error(`${label}: step refers to output {${index}} that does not exist yet`);
    return output;
  });
}

/**
 * One demonstration's response, written as a rollout builds it: policy segments with lossMask 1, each call's
 * real sandbox output rendered by the format and encoded untrusted with lossMask 0. `label` names the task in
 * errors.
 */
export class DemoWriter {
  readonly #builder = new ResponseBuilder();
  readonly #env: DemoEnvironment;
  readonly #label: string;

  constructor(env: DemoEnvironment, label: string) {
    this.#env = env;
    this.#label = label;
  }

  /** Writes a call of `code` (the code block, then the output opener), runs it, and inserts its observation. */
  async call(code: string): Promise<CodeResult> {
    const { tokenizer, sandbox, format, maxObservationChars } = this.#env;
    const text = `\`\`\`python\n${code}\n\`\`\`\n${format.stopStrings[0]}`;
    // The rollout engine will parse the same text with the same format; a trace it cannot parse is useless.
    if (format.parse(text)?.code !== code)
      throw new Error(`${this.#label}: the tool format does not parse ${JSON.stringify(text)}`);
    this.#builder.appendPolicy(tokenizer.encode(text));
    const result = await sandbox.run({ code });
    const observation = format.render(
      result,
      maxObservationChars === undefined ? {} : { maxChars: maxObservationChars },
    );
    this.#builder.appendObservation(tokenizer.encodeUntrusted(observation), {
      status: result.status,
      code,
      output: observation,
    });
    return result;
  }

  /** A call of reference code, which must succeed; returns what it printed. */
  async reference(code: string, problemId: string): Promise<string> {
    const result = await this.call(code);
    if (result.status !== 'ok') {
      throw new Error(
        `${this.#label}: reference code of ${problemId} failed (${result.status}): ${result.stderr.trim()}`,
      );
    }
    return result.stdout.trim();
  }

  /** A call of code broken on purpose, which must fail. */
  async mistake(code: string, problemId: string): Promise<void> {
    const result = await this.call(code);
    if (result.status !== 'error') {
      throw new Error(
        `${this.#label}: the deliberate mistake in ${problemId} ended with status ${result.status}, not error`,
      );
    }
  }

  /** Ends the response with the boxed answer and end of turn. */
  answer(answer: string) {
    const { tokenizer } = this.#env;
    this.#builder.appendPolicy([...tokenizer.encode(`A: \\boxed{${answer}}`), tokenizer.eosTokenId]);
    return this.#builder.build();
  }
}

/** A planned demonstration: its problem (id and user message) and how it is solved. */
export interface DemoPlan {
  readonly problem: { readonly id: string };
  readonly userMessage: string;
}

/**
 * Writes one trajectory per plan, `concurrency` problems at once (each problem's calls in order); the plans were
 * drawn up front, so concurrency changes nothing. `solve` gets the prompt's length in tokens, writes the response,
 * says whether it is right, and adds its own fields (the strategy) to the trajectory.
 */
export async function writeDemonstrations<P extends DemoPlan, S extends object>(
  plans: readonly P[],
  env: DemoEnvironment,
  solve: (
    plan: P,
    promptTokens: number,
  ) => Promise<{ response: ReturnType<DemoWriter['answer']>; correct: boolean; extra: S }>,
): Promise<Array<Trajectory & S>> {
  const template = env.template ?? ChatTemplate.embedded();
  const traces: Array<Trajectory & S> = new Array(plans.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < plans.length) {
      const index = next++;
      const plan = plans[index] as P;
      const prompt = template.render([{ role: 'user', content: plan.userMessage }], {
        addGenerationPrompt: true,
      });
      const promptIds = env.tokenizer.encode(prompt);
      const { response, correct, extra } = await solve(plan, promptIds.length);
      traces[index] = {
        groupId: plan.problem.id,
        promptIds,
        ...response,
        reward: correct ? 1 : 0,
        correct,
        truncated: false,
        text: env.tokenizer.decode(response.responseIds),
        ...extra,
      };
      env.onProgress?.({ done: ++done, total: plans.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, env.concurrency ?? 8) }, worker));
  return traces;
}

/** Checks that every share in `shares` is in [0, 1]; `where` is the per-key label of a share given per level. */
export function checkShares(
  caller: string,
  shares: ReadonlyArray<readonly [string, number | Readonly<Record<string, number | undefined>>]>,
): void {
  for (const [name, share] of shares) {
    for (const [where, value] of typeof share === 'number' ? [['', share] as const] : Object.entries(share)) {
      if (!(typeof value === 'number' && value >= 0 && value <= 1))
        throw new RangeError(
          `${caller}: ${name}${where === '' ? '' : `[${where}]`} must be in [0, 1], got ${value}`,
        );
    }
  }
}
