import type { ChatMessage } from '@taorl/data';
import type { CodeTask } from '@taorl/eval';

/** A problem as the RL loop sees it: a rendered prompt and the gold answer. */
export interface Problem {
  /** Stable id; the group id of every trajectory sampled for it. */
  id: string;
  promptIds: Int32Array;
  /** The messages `promptIds` renders (the template integrity check renders them again). */
  promptMessages?: ChatMessage[];
  /** The gold answer; for a code problem, a description of its tests (the tests are in `code`). */
  gold: string;
  /** A code problem: its program is judged against these tests (the code-correctness reward). */
  code?: CodeTask;
  /** Embedded task only: the problem's level and the tool calls its solution needs (strategy and level reports). */
  level?: number;
  requiredCalls?: number;
}
