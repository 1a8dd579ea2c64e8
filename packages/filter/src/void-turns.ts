import { ANSWER_OPENING } from './answer-format-facts';

/**
 * SimpleTIR's rule for a complete code block (ltzheng/SimpleTIR@e7b5b44 recipe/simpletir/agent_utils.py,
 * execute_predictions): an opening fence with an optional py / python tag and a newline, the code, a newline and a
 * closing fence.
 */
const MARKDOWN_CODE_BLOCK = /```(?:py|python)?\n(.*?)\n```/s;

/**
 * Whether a turn holds a complete markdown code block by SimpleTIR's rule. A fence with no body line ("```python\n```")
 * is none: the pattern needs a newline after the opening and another before the closing fence.
 */
export function hasMarkdownCodeBlock(turn: string): boolean {
  return MARKDOWN_CODE_BLOCK.test(turn);
}

export interface VoidTurnRule {
  /** Whether a turn holds a complete code block. Default SimpleTIR's markdown fence; pass the tool format's parser for others. */
  readonly hasCodeBlock?: (turn: string) => boolean;
}

/** What the assistant turns of one response show, in the fields the filters read. */
export interface TurnFacts {
  /** True when some turn produced neither a complete code block nor a final answer. */
  readonly voidTurn: boolean;
  /** Indices of the void turns. */
  readonly voidTurns: readonly number[];
}

/**
 * Marks void turns by SimpleTIR's rule: a turn (one generation, up to a tool call or the end) that holds neither a
 * complete code block nor `\boxed{` is void; SimpleTIR stops such a trajectory and masks it out of the loss
 * (mask_void_turns), which the `void-turn` filter does with the `voidTurn` flag set from here. A turn cut by the
 * length budget inside its code block has no complete block and is void, as in SimpleTIR. `turns` are the
 * assistant turns' texts, tool output excluded.
 */
export function voidTurns(turns: readonly string[], rule: VoidTurnRule = {}): TurnFacts {
  const hasCodeBlock = rule.hasCodeBlock ?? hasMarkdownCodeBlock;
  const indices: number[] = [];
  turns.forEach((turn, index) => {
    if (typeof turn !== 'string') throw new Error(`voidTurns: turn ${index} is not a string`);
    // SimpleTIR's final answer: the turn contains `\boxed{`.
    if (!turn.includes(ANSWER_OPENING) && !hasCodeBlock(turn)) indices.push(index);
  });
  return { voidTurn: indices.length > 0, voidTurns: indices };
}
