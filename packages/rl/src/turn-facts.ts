import type { Trajectory } from '@taorl/data';
import {
  type AnswerFormatFacts,
  answerFormatFacts,
  hasMarkdownCodeBlock,
  type TurnFacts,
  voidTurns,
} from '@taorl/filter';
import type { ToolFormat } from '@taorl/sandbox';

/**
 * The assistant turns of a response as text: the generated spans between the tool observations (which the
 * environment inserted, lossMask 0). A turn after the last observation counts only if something was generated.
 */
export function assistantTurns(trajectory: Trajectory, decode: (ids: Int32Array) => string): string[] {
  const turns: string[] = [];
  let start = 0;
  for (const call of trajectory.toolCalls) {
    turns.push(decode(trajectory.responseIds.subarray(start, call.startToken)));
    start = call.endToken;
  }
  if (start < trajectory.responseIds.length) turns.push(decode(trajectory.responseIds.subarray(start)));
  return turns;
}

/**
 * @taorl/sandbox's markdownFormat, by its registry name (the config's `tool.format`): the name, not the object, keeps
 * this entry free of the sandbox's main entry, which is Node's.
 */
const MARKDOWN = 'markdown';

/**
 * Whether an assistant turn holds a complete code block, for SimpleTIR's void turns. Markdown: SimpleTIR's own
 * pattern on the turn without the format's closing stop string (```output, which SimpleTIR's responses do not
 * have and its pattern would take for the closing fence of "```python\n```"), so a fence with no body line is
 * none, though the format's parser runs it as an empty program. Other formats, which SimpleTIR has no rule for: a
 * call the format parses.
 */
export function codeBlockRule(format: ToolFormat): (turn: string) => boolean {
  if (format.name !== MARKDOWN) return (turn) => format.parse(turn) !== null;
  return (turn) => {
    const stop = format.stopStrings.find((end) => turn.endsWith(end));
    return hasMarkdownCodeBlock(stop === undefined ? turn : turn.slice(0, -stop.length));
  };
}

/**
 * The trajectory with SimpleTIR's void-turn flag (@taorl/filter's voidTurns) and the answer-format facts
 * resample-on-correct's format penalty reads (answerFormatFacts, over the whole decoded response as rStar2-Agent
 * reads it), so the `void-turn` filter and the penalty act on what the rollout produced.
 */
export function withTurnFacts(
  trajectory: Trajectory,
  decode: (ids: Int32Array) => string,
  hasCodeBlock: (turn: string) => boolean,
): Trajectory & TurnFacts & AnswerFormatFacts {
  const turns = assistantTurns(trajectory, decode);
  const answers = answerFormatFacts({
    text: decode(trajectory.responseIds),
    turns: turns.length,
    truncated: trajectory.truncated,
  });
  return { ...trajectory, ...voidTurns(turns, { hasCodeBlock }), ...answers };
}
