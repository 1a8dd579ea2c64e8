import { describe, expect, it } from 'vitest';
import { hasMarkdownCodeBlock, VOID_TURN, voidTurn, voidTurns } from '../src/index';

// Assistant turns as the markdown tool format (Qwen2.5-Math TIR) produces them: text, then a fenced block the
// rollout stops after; the observation (```output ...```) is tool output and not part of a turn.
const CODE_TURN = 'Let me compute the sum.\n```python\nprint(sum(range(1, 11)))\n```';
const ANSWER_TURN = 'The sum is 55, so the answer is \\boxed{55}.';

describe('voidTurns (SimpleTIR)', () => {
  it('accepts turns with a complete code block or a final answer', () => {
    expect(voidTurns([CODE_TURN, ANSWER_TURN])).toEqual({ voidTurn: false, voidTurns: [] });
    expect(voidTurns(['```py\nx = 2\n```', '```\nprint(1)\n```']).voidTurn).toBe(false);
  });

  it('marks turns with neither, as SimpleTIR does', () => {
    const facts = voidTurns([
      CODE_TURN,
      'Hmm, I think the code is wrong. Let me think again about the problem.',
      ANSWER_TURN,
    ]);
    expect(facts.voidTurns).toEqual([1]);
    expect(facts.voidTurn).toBe(true);
  });

  it('does not count a block cut off by the length budget, or one with another language tag', () => {
    expect(voidTurns(['Let me compute.\n```python\nprint(sum(range(1, 1']).voidTurns).toEqual([0]);
    expect(voidTurns(['```javascript\nconsole.log(1)\n```']).voidTurns).toEqual([0]);
    // No newline after the tag: SimpleTIR's pattern needs the code on its own lines.
    expect(voidTurns(['```python print(1)```']).voidTurns).toEqual([0]);
  });

  it("counts a fence with no body line as no code block, as SimpleTIR's regex does", () => {
    // ltzheng/SimpleTIR@e7b5b44 execute_predictions: ```(?:py|python)?\n(.*?)\n``` needs a newline after the
    // opening fence and another before the closing one; an empty body line is a block, no body line is none.
    const simpleTir = /```(?:py|python)?\n(.*?)\n```/s;
    const cases = [
      '```python\n```',
      '```\n```',
      'Run it:\n```py\n```\nDone.',
      '```python\n\n```',
      '```\n\n```',
    ];
    for (const turn of cases) expect(hasMarkdownCodeBlock(turn), turn).toBe(simpleTir.test(turn));
    expect(cases.map(hasMarkdownCodeBlock)).toEqual([false, false, false, true, true]);
    expect(voidTurns(['```python\n```']).voidTurns).toEqual([0]);
  });

  it('takes the tool format parser for other formats', () => {
    const hermes = '<tool_call>{"name": "code_interpreter", "arguments": {"code": "print(1)"}}</tool_call>';
    expect(voidTurns([hermes]).voidTurn).toBe(true);
    expect(voidTurns([hermes], { hasCodeBlock: (turn) => turn.includes('</tool_call>') }).voidTurn).toBe(
      false,
    );
  });

  it('sets the flag the void-turn filter reads, which then masks the trajectory', () => {
    const batch = [
      {
        groupId: 'q',
        toolCalls: [],
        lossMask: Uint8Array.from([1, 1]),
        ...voidTurns([CODE_TURN, ANSWER_TURN]),
      },
      { groupId: 'q', toolCalls: [], lossMask: Uint8Array.from([1, 1]), ...voidTurns(['Let me think.']) },
    ];
    const result = voidTurn().apply(batch);
    expect(result.masked).toEqual([{ index: 1, filter: 'void-turn', reason: VOID_TURN }]);
    expect(Array.from(result.kept[1]!.lossMask)).toEqual([0, 0]);
    expect(result.kept[0]).toBe(batch[0]);
  });
});
