import { ByteTokenizer, type Trajectory } from '@taorl/data';
import { markdownFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import { assistantTurns, codeBlockRule, withTurnFacts } from '../src/turn-facts.js';

const tokenizer = new ByteTokenizer();

/** A markdown-format response laid out as the rollout stores it: turns, observations (lossMask 0) in between. */
function trajectory(parts: { text: string; observation?: boolean }[]): Trajectory {
  const ids: number[] = [];
  const mask: number[] = [];
  const toolCalls: Trajectory['toolCalls'] = [];
  for (const part of parts) {
    const encoded = Array.from(tokenizer.encode(part.text));
    if (part.observation === true) {
      toolCalls.push({
        status: 'ok',
        startToken: ids.length,
        endToken: ids.length + encoded.length,
        code: '',
        output: '',
      });
    }
    ids.push(...encoded);
    mask.push(...encoded.map(() => (part.observation === true ? 0 : 1)));
  }
  const n = ids.length;
  return {
    groupId: 'q',
    promptIds: Int32Array.from(tokenizer.encode('Q: 2+2?')),
    responseIds: Int32Array.from(ids),
    lossMask: Uint8Array.from(mask),
    oldLogProbs: new Float32Array(n),
    entropies: new Float32Array(n),
    toolCalls,
    reward: 0,
    correct: false,
    truncated: false,
    text: '',
  };
}

const decode = (ids: Int32Array) => tokenizer.decode(ids);
const markdownParse = codeBlockRule(markdownFormat);

describe('void turns in the RL step (SimpleTIR rule on real-shaped responses)', () => {
  it('splits a response into its assistant turns around the observations', () => {
    const t = trajectory([
      { text: 'Let me add.\n```python\nprint(2+2)\n```\n```output' },
      { text: '\n4\n```\n', observation: true },
      { text: 'So the answer is \\boxed{4}.' },
    ]);
    expect(assistantTurns(t, decode)).toEqual([
      'Let me add.\n```python\nprint(2+2)\n```\n```output',
      'So the answer is \\boxed{4}.',
    ]);
    expect(withTurnFacts(t, decode, markdownParse)).toMatchObject({
      voidTurn: false,
      answerCount: 1,
      answerOpenings: 1,
      laterTurns: 1,
    });
  });

  it('marks a final turn with neither a code block nor an answer, and a block cut by the budget', () => {
    const rambling = trajectory([
      { text: '```python\nprint(2+2)\n```\n```output' },
      { text: '\n4\n```\n', observation: true },
      { text: 'Hmm, that does not look right. Let me think.' },
    ]);
    expect(withTurnFacts(rambling, decode, markdownParse)).toMatchObject({ voidTurn: true, voidTurns: [1] });
    const cut = trajectory([{ text: 'Let me compute.\n```python\nprint(sum(range(' }]);
    expect(withTurnFacts(cut, decode, markdownParse).voidTurn).toBe(true);
    // The tool output is no turn: an observation holding \boxed{} does not answer for the policy. rStar2-Agent's
    // format penalty counts answers over the decoded response, tool output included: there it is one.
    const echoed = trajectory([
      { text: '```python\nprint(1)\n```\n```output' },
      { text: '\n\\boxed{1}\n```\n', observation: true },
    ]);
    expect(withTurnFacts(echoed, decode, markdownParse)).toMatchObject({ voidTurn: false, answerCount: 1 });
  });

  it('marks a fence with no body line void, though the rollout parser runs it (SimpleTIR@e7b5b44)', () => {
    // The markdown format's parser takes "```python\n```" as a call of an empty program; SimpleTIR's pattern
    // ```(?:py|python)?\n(.*?)\n``` needs a line between the fences, so its rollout stops there and masks it.
    expect(markdownFormat.parse('```python\n```\n```output')).not.toBeNull();
    const empty = trajectory([
      { text: 'Let me run it.\n```python\n```\n```output' },
      { text: '\n\n```\n', observation: true },
      { text: 'So \\boxed{4}.' },
    ]);
    expect(withTurnFacts(empty, decode, markdownParse)).toMatchObject({ voidTurn: true, voidTurns: [0] });
    const blankLine = trajectory([
      { text: '```python\n\n```\n```output' },
      { text: '\n\n```\n', observation: true },
    ]);
    expect(withTurnFacts(blankLine, decode, markdownParse).voidTurn).toBe(false);
  });

  it('counts the later turns that ended for the format penalty: a cut last turn is not one', () => {
    const parts = [
      { text: '```python\nprint(2+2)\n```\n```output' },
      { text: '\n4\n```\n', observation: true },
      { text: 'So \\boxed{4}, or \\boxed{5' },
    ];
    expect(withTurnFacts(trajectory(parts), decode, markdownParse)).toMatchObject({
      answerCount: 1,
      answerOpenings: 2,
      laterTurns: 1,
    });
    const cut = { ...trajectory(parts), truncated: true };
    expect(withTurnFacts(cut, decode, markdownParse)).toMatchObject({ laterTurns: 0 });
  });
});
