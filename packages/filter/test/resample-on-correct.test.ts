import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import {
  answerFormatFacts,
  answerFormatPenalty,
  composeFilters,
  GROUP_BELOW_SIZE,
  getFilter,
  resampleOnCorrect,
  SURPLUS_CORRECT,
  SURPLUS_WRONG,
  toolAwareFilter,
  toolErrorPenalty,
  WORLD_SIZE_REMAINDER,
} from '../src/index';

/**
 * One rollout told twice: as rStar2-Agent's decoded response (its chat format, `<answer>` tags; the first assistant
 * turn's header sits in the prompt) and as the taorl trajectory of the same events (`\boxed{}` answers, tool calls
 * with their status and observation text, the facts answerFormatFacts counts).
 */
interface Story {
  correct: boolean;
  /** Per assistant turn: the closed answers it gives, and whether it then opens one it never closes. */
  turns: { answers: number; unclosed?: boolean }[];
  /** One per turn but the last: the tool's output text and the sandbox's status. */
  calls: { output: string; status: string }[];
  /** The length budget cut the last turn. */
  truncated?: boolean;
}

const OUTPUTS = [
  { output: '42', status: 'ok' },
  { output: 'Traceback (most recent call last):\nNameError: name x is not defined', status: 'error' },
  // A program that prints the word: an error to the source's text rule, a success to the sandbox.
  { output: 'relative error 0.01', status: 'ok' },
  // A killed process: the sandbox's failure, no "error" in the text.
  { output: 'The process was killed by SIGKILL.', status: 'killed' },
];

function rStarText(story: Story): string {
  const content = (turn: Story['turns'][number], k: number) =>
    `Step ${k}. ${'<answer>7</answer> '.repeat(turn.answers)}${turn.unclosed ? '<answer>8' : ''}`;
  let text = '';
  story.turns.forEach((turn, k) => {
    if (k > 0) {
      text += `\n<|im_start|>user\n<tool_response>\n${story.calls[k - 1]!.output}\n</tool_response><|im_end|>\n`;
      text += '<|im_start|>assistant\n';
    }
    text += content(turn, k);
    if (!(story.truncated && k === story.turns.length - 1)) text += '<|im_end|>';
  });
  return text;
}

function trajectory(story: Story, groupId = 'q') {
  const content = (turn: Story['turns'][number], k: number) =>
    `Step ${k}. ${'\\boxed{7} '.repeat(turn.answers)}${turn.unclosed ? '\\boxed{8' : ''}`;
  const observation = (output: string) => `\n<tool_response>\n${output}\n</tool_response>\n`;
  const text = story.turns
    .map((turn, k) => (k === 0 ? '' : observation(story.calls[k - 1]!.output)) + content(turn, k))
    .join('');
  return {
    groupId,
    correct: story.correct,
    toolCalls: story.calls.map(({ output, status }) => ({ status, output: observation(output) })),
    lossMask: Uint8Array.from([1, 1]),
    ...answerFormatFacts({ text, turns: story.turns.length, truncated: story.truncated ?? false }),
  };
}

/** Python's round(): halves to even. */
const pyRound = (x: number) => {
  const f = Math.floor(x);
  return x - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(x);
};

/** calc_error_ratio_penalty_weights (microsoft/rStar@5e95b19 rstar2_agent/down_sample/roc.py) on the text. */
function rStarErrorRatio(text: string): number {
  const matches = text.match(/<tool_response>.*?<\/tool_response>/gs) ?? [];
  if (matches.length === 0) return 0.5;
  return matches.filter((m) => m.toLowerCase().includes('error')).length / matches.length;
}

/** answer_tag_repetition (same file) on the text. */
function rStarFormat(text: string): number {
  const tags = ['<answer>', '</answer>'];
  if (tags.some((tag) => !text.includes(tag))) return 1;
  const closed = (text.match(/<answer>.*?<\/answer>/gs) ?? []).length;
  if (tags.some((tag) => text.split(tag).length - 1 !== closed)) return 1;
  const turns = (text.match(/<\|im_start\|>assistant.*?<\|im_end\|>/gs) ?? []).length;
  if (turns === 0) return 1;
  return Math.min((closed - 1) / turns, 1);
}

interface Settings {
  size: number;
  minWrong: number;
  minCorrect: number;
  worldSize: number;
  /** Plausible mistakes the tests must tell apart from the source. */
  sortWrong?: boolean;
}

/**
 * resample_of_correct and filter_by_mask (rstar2_agent/down_sample/utils.py) at rStar's main, re-stated over a
 * batch: groups smaller than size dropped, equal kept, larger cut (right ones sorted by penalty, stable; wrong ones
 * in batch order), then the kept set cut to a multiple of the world size. Returns the kept batch positions.
 */
function rocReference(batch: { story: Story; groupId: string }[], settings: Settings): number[] {
  const { size, minWrong, minCorrect, worldSize } = settings;
  const penalty = batch.map(({ story }) => rStarErrorRatio(rStarText(story)) + rStarFormat(rStarText(story)));
  const valid = new Array<boolean>(batch.length).fill(false);
  for (const uid of new Set(batch.map((b) => b.groupId))) {
    const indices = batch.flatMap((b, i) => (b.groupId === uid ? [i] : []));
    if (indices.length < size) continue;
    if (indices.length === size) {
      for (const i of indices) valid[i] = true;
      continue;
    }
    const zero = indices.filter((i) => !batch[i]!.story.correct).map((i) => [i, penalty[i]!] as const);
    const nonZero = indices.filter((i) => batch[i]!.story.correct).map((i) => [i, penalty[i]!] as const);
    nonZero.sort((a, b) => a[1] - b[1]);
    if (settings.sortWrong) zero.sort((a, b) => a[1] - b[1]);
    let zeroNum = pyRound((zero.length * size) / indices.length);
    let nonZeroNum = pyRound((nonZero.length * size) / indices.length);
    if (zeroNum <= Math.min(minWrong, zero.length)) {
      zeroNum = Math.min(minWrong, zero.length);
      nonZeroNum = size - zeroNum;
    }
    if (nonZeroNum <= Math.min(minCorrect, nonZero.length)) {
      nonZeroNum = Math.min(minCorrect, nonZero.length);
      zeroNum = size - nonZeroNum;
    }
    const choices = [...nonZero.slice(0, nonZeroNum), ...zero.slice(0, zeroNum)].map((p) => p[0]);
    if (choices.length !== size) return []; // the source's assertion fails: no reference for this batch
    for (const i of choices) valid[i] = true;
  }
  const kept = valid.flatMap((v, i) => (v ? [i] : []));
  return kept.slice(0, Math.floor(kept.length / worldSize) * worldSize);
}

function randomStory(random: () => number): Story {
  const turnCount = 1 + Math.floor(random() * 4);
  return {
    correct: random() < 0.5,
    turns: Array.from({ length: turnCount }, () => ({
      answers: random() < 0.6 ? 0 : 1 + Math.floor(random() * 2),
      unclosed: random() < 0.1,
    })),
    calls: Array.from({ length: turnCount - 1 }, () => OUTPUTS[Math.floor(random() * OUTPUTS.length)]!),
    truncated: random() < 0.2,
  };
}

const keptBy = (batch: { story: Story; groupId: string }[], settings: Settings) =>
  resampleOnCorrect(settings).apply(batch.map(({ story, groupId }) => trajectory(story, groupId)))
    .keptIndices;

describe('resample-on-correct (rStar2-Agent GRPO-RoC) against the source re-stated', () => {
  it('gives each response the penalty the source computes from its text', () => {
    const random = seededRandom(2509);
    const penalties = new Set<number>();
    for (let trial = 0; trial < 400; trial++) {
      const story = randomStory(random);
      const text = rStarText(story);
      const t = trajectory(story);
      expect(toolErrorPenalty(t, 0), JSON.stringify(story)).toBe(rStarErrorRatio(text));
      expect(answerFormatPenalty(t, 0), JSON.stringify(story)).toBe(rStarFormat(text));
      penalties.add(rStarErrorRatio(text) + rStarFormat(text));
    }
    expect(penalties.size).toBeGreaterThan(8);
  });

  it('counts the turns after the first that ended, 1 when there is none (not every turn)', () => {
    // Two closed answers over three turns: the source divides by the 2 later turns (penalty 1/2); counting all 3
    // turns would give 1/3. One turn only: the source's 1.0, where "answers - 1 over turns" would give 0.
    const three: Story = {
      correct: true,
      turns: [{ answers: 1 }, { answers: 0 }, { answers: 1 }],
      calls: [OUTPUTS[0]!, OUTPUTS[0]!],
    };
    expect(rStarFormat(rStarText(three))).toBe(0.5);
    expect(trajectory(three)).toMatchObject({ answerCount: 2, answerOpenings: 2, laterTurns: 2 });
    const single: Story = { correct: true, turns: [{ answers: 1 }], calls: [] };
    expect(rStarFormat(rStarText(single))).toBe(1);
    expect(trajectory(single)).toMatchObject({ answerCount: 1, laterTurns: 0 });
    // The length budget cut the last turn: it has no <|im_end|> and is not counted.
    const cut: Story = { ...three, truncated: true };
    expect(rStarFormat(rStarText(cut))).toBe(1);
    expect(trajectory(cut)).toMatchObject({ laterTurns: 1 });
    // An answer opened and never closed unbalances the tags: 1.0 whatever else.
    const open: Story = {
      correct: true,
      turns: [{ answers: 1 }, { answers: 1, unclosed: true }],
      calls: [OUTPUTS[0]!],
    };
    expect(rStarFormat(rStarText(open))).toBe(1);
    expect(trajectory(open)).toMatchObject({ answerCount: 2, answerOpenings: 3 });
  });

  it('keeps the wrong trajectories in batch order, not sorted by penalty (rStar PR #50)', () => {
    // 8 to 4: 4 right, 4 wrong -> 2 and 2. The first two wrong ones have failing calls, the last two none.
    const failing: Story = { correct: false, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[1]!] };
    const clean: Story = { correct: false, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[0]!] };
    const right: Story = { ...clean, correct: true };
    const batch = [failing, failing, clean, clean, right, right, right, right].map((story) => ({
      story,
      groupId: 'q',
    }));
    const settings = { size: 4, minWrong: 2, minCorrect: 2, worldSize: 1 };
    expect(keptBy(batch, settings)).toEqual(rocReference(batch, settings));
    expect(keptBy(batch, settings)).toEqual([0, 1, 4, 5]);
    expect(rocReference(batch, { ...settings, sortWrong: true })).toEqual([2, 3, 4, 5]);
  });

  it('matches the source on random batches: minima from -1, world sizes, small groups dropped', () => {
    const random = seededRandom(2508);
    let compared = 0;
    let sortedDiffers = 0;
    for (let trial = 0; trial < 400; trial++) {
      const size = 1 + Math.floor(random() * 6);
      const minWrong = -1 + Math.floor(random() * (size + 2));
      const minCorrect = Math.max(-1, Math.min(size - minWrong, -1 + Math.floor(random() * (size + 2))));
      const worldSize = 1 + Math.floor(random() * 3);
      const batch = ['a', 'b', 'c'].flatMap((groupId) =>
        Array.from({ length: Math.max(1, size - 1 + Math.floor(random() * 2 * size)) }, () => ({
          story: randomStory(random),
          groupId,
        })),
      );
      const settings = { size, minWrong, minCorrect, worldSize };
      const expected = rocReference(batch, settings);
      if (expected.length === 0) continue;
      compared++;
      const label = `trial ${trial}: size ${size} min ${minWrong}/${minCorrect} world ${worldSize}`;
      expect(keptBy(batch, settings), label).toEqual(expected);
      if (rocReference(batch, { ...settings, sortWrong: true }).join() !== expected.join()) sortedDiffers++;
    }
    expect(compared).toBeGreaterThan(300);
    expect(sortedDiffers).toBeGreaterThan(10);
  });

  it('reads the sandbox status instead of the text with errorSignal status', () => {
    // Right ones to 1: the text rule fails the "relative error" print, the status rule the killed process.
    const printed: Story = { correct: true, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[2]!] };
    const killed: Story = { correct: true, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[3]!] };
    const batch = [trajectory(printed), trajectory(killed)];
    const options = { size: 1, minWrong: 0, minCorrect: 0, answerFormat: false };
    expect(resampleOnCorrect(options).apply(batch).keptIndices).toEqual([1]);
    expect(resampleOnCorrect({ ...options, errorSignal: 'status' }).apply(batch).keptIndices).toEqual([0]);
    const silent = [{ ...batch[0]!, toolCalls: [{ status: 'ok' }] }, batch[1]!];
    expect(() => resampleOnCorrect(options).apply(silent)).toThrow(
      /trajectory 0: toolCalls\[0\]\.output must be the observation text for errorSignal 'output'/,
    );
  });

  it('drops a group smaller than size (reason group-below-size), keeps it with smallGroups keep', () => {
    const small = [true, false].map((correct) => trajectory({ correct, turns: [{ answers: 1 }], calls: [] }));
    const result = resampleOnCorrect({ size: 3, minWrong: 1, minCorrect: 1 }).apply(small);
    expect(result.kept).toEqual([]);
    expect(result.stats.dropped).toEqual({ [GROUP_BELOW_SIZE]: 2 });
    const kept = resampleOnCorrect({ size: 3, minWrong: 1, minCorrect: 1, smallGroups: 'keep' }).apply(small);
    expect(kept.keptIndices).toEqual([0, 1]);
  });

  it('cuts the kept set to a multiple of worldSize, and names the option when nothing is left', () => {
    const story: Story = { correct: true, turns: [{ answers: 1 }], calls: [] };
    const batch = ['a', 'a', 'b', 'b', 'c', 'c'].map((groupId) => trajectory(story, groupId));
    const result = resampleOnCorrect({ size: 2, minWrong: 0, minCorrect: 0, worldSize: 4 }).apply(batch);
    expect(result.keptIndices).toEqual([0, 1, 2, 3]);
    expect(result.stats.resampled).toEqual({ [WORLD_SIZE_REMAINDER]: 2 });
    expect(() =>
      resampleOnCorrect({ size: 2, minWrong: 0, minCorrect: 0, worldSize: 8 }).apply(batch),
    ).toThrow(/option 'worldSize' \(8\) leaves no trajectory of the 6 kept/);
  });

  it('keeps size where two halves round the same way (the source would fail its assertion)', () => {
    // 2 right, 2 wrong to 3: round(1.5) = 2 on both sides; the right side gives one back.
    const ok: Story = { correct: true, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[0]!] };
    const bad: Story = { ...ok, calls: [OUTPUTS[1]!] };
    const group = [ok, bad, { ...ok, correct: false }, { ...bad, correct: false }].map((s) => trajectory(s));
    const result = resampleOnCorrect({ size: 3, minWrong: 0, minCorrect: 0 }).apply(group);
    expect(result.keptIndices).toEqual([0, 2, 3]);
    expect(result.stats.resampled).toEqual({ [SURPLUS_CORRECT]: 1 });
  });

  it('switches the penalties off on request and then needs no answer counts', () => {
    const group = [
      { groupId: 'q', correct: true, toolCalls: [{ status: 'error', output: 'Error' }] },
      { groupId: 'q', correct: true, toolCalls: [{ status: 'ok', output: '1' }] },
      { groupId: 'q', correct: true, toolCalls: [{ status: 'ok', output: '2' }] },
    ];
    expect(resampleOnCorrect({ size: 2, minWrong: 0, answerFormat: false }).apply(group).keptIndices).toEqual(
      [1, 2],
    );
    expect(() => resampleOnCorrect({ size: 2, minWrong: 0 }).apply(group)).toThrow(
      /trajectory 0: field 'answerCount' must be an integer >= 0/,
    );
    const plain = resampleOnCorrect({ size: 2, minWrong: 0, errorRatio: false, answerFormat: false });
    expect(plain.apply(group).keptIndices).toEqual([0, 1]);
  });

  it('names the option of bad settings', () => {
    expect(() => resampleOnCorrect()).toThrow(/option 'size' .* is required/);
    expect(() => resampleOnCorrect({ size: 0 })).toThrow(/option 'size' must be an integer >= 1/);
    expect(() => resampleOnCorrect({ size: 3 })).toThrow(
      /options 'minWrong' \+ 'minCorrect' \(2 \+ 2\) must not exceed 'size' \(3\)/,
    );
    expect(() => resampleOnCorrect({ size: 3, minWrong: -2 })).toThrow(
      /option 'minWrong' must be an integer >= -1/,
    );
    expect(() => resampleOnCorrect({ size: 3, minWrong: -1, minCorrect: -1, worldSize: 0 })).toThrow(
      /option 'worldSize' must be an integer >= 1/,
    );
    expect(() => resampleOnCorrect({ size: 4, errorSignal: 'text' as never })).toThrow(
      /option 'errorSignal' must be output or status, got "text"/,
    );
    expect(() => resampleOnCorrect({ size: 4, smallGroups: 'pad' as never })).toThrow(/option 'smallGroups'/);
    expect(() => getFilter('resample-on-correct', { size: 4, keep: 2 })).toThrow(/unknown option 'keep'/);
    expect(() => resampleOnCorrect({ size: 4, errorRatio: 'yes' as never })).toThrow(/option 'errorRatio'/);
  });

  it('composes: resampled trajectories are reported apart from dropped ones', () => {
    const ok: Story = { correct: true, turns: [{ answers: 1 }, { answers: 1 }], calls: [OUTPUTS[0]!] };
    const failed: Story = { ...ok, calls: [OUTPUTS[1]!] };
    const wrong: Story = { ...ok, correct: false };
    const batch = [
      trajectory(ok),
      trajectory(failed),
      trajectory(wrong),
      trajectory(wrong),
      trajectory(ok, 'r'),
      trajectory(ok, 'r'),
    ];
    const result = composeFilters(
      resampleOnCorrect({ size: 2, minWrong: 1, minCorrect: 1 }),
      toolAwareFilter(),
    ).apply(batch);
    expect(result.stats.resampled).toEqual({ [SURPLUS_CORRECT]: 1, [SURPLUS_WRONG]: 1 });
    expect(result.stats.dropped).toEqual({ 'all-correct': 2 });
    expect(result.keptIndices).toEqual([0, 2]);
    expect(result.resampled.map((r) => r.item)).toEqual([batch[1], batch[3]]);
  });
});
