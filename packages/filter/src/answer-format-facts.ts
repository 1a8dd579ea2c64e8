/** The final answer's opening: taorl's answer format (`\boxed{...}`) in place of rStar2-Agent's `<answer>` tag. */
export const ANSWER_OPENING = '\\boxed{';

/** What resample-on-correct's format penalty reads from one response (rStar2-Agent's answer_tag_repetition). */
export interface AnswerFormatFacts {
  /** Closed answers: `\boxed{` whose braces close, counted without overlap as the source's `<answer>.*?</answer>`. */
  readonly answerCount: number;
  /** `\boxed{` openings, closed or not; more openings than closed answers are unbalanced tags to the source. */
  readonly answerOpenings: number;
  /**
   * Assistant turns after the first that ended (by a tool call or the response's end, not cut by the length
   * budget): what the source's `<|im_start|>assistant.*?<|im_end|>` finds in a response whose first turn's header
   * is in the prompt.
   */
  readonly laterTurns: number;
}

/** Offset just past the brace that closes the one opened before `from`, or -1 when the text ends first. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The answer counts of a whole response (`text`, tool output included, as the source scans the decoded response)
 * and its later turns: `turns` assistant turns, the last of which is cut when the response is `truncated`.
 */
export function answerFormatFacts(response: {
  readonly text: string;
  readonly turns: number;
  readonly truncated: boolean;
}): AnswerFormatFacts {
  const { text, turns, truncated } = response;
  if (!Number.isInteger(turns) || turns < 0) {
    throw new Error(`answerFormatFacts: 'turns' must be an integer >= 0, got ${String(turns)}`);
  }
  const answerOpenings = text.split(ANSWER_OPENING).length - 1;
  let answerCount = 0;
  for (let at = text.indexOf(ANSWER_OPENING); at >= 0; ) {
    const end = closingBrace(text, at + ANSWER_OPENING.length);
    if (end < 0) break;
    answerCount++;
    at = text.indexOf(ANSWER_OPENING, end);
  }
  const cutLastTurn = truncated && turns > 1 ? 1 : 0;
  return { answerCount, answerOpenings, laterTurns: Math.max(0, turns - 1 - cutLastTurn) };
}
