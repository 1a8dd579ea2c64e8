import { toolCallsOf } from './readout';
import type { FilterableToolCall, FilterableTrajectory } from './types';

/**
 * What marks a tool call as failed for the error-ratio penalty: `output`, the source's rule (the tool response's
 * text contains "error", any case), or `status`, the sandbox's status other than `ok`.
 */
export type ToolErrorSignal = 'output' | 'status';
export const TOOL_ERROR_SIGNALS: readonly ToolErrorSignal[] = ['output', 'status'];

function failed(call: FilterableToolCall, signal: ToolErrorSignal, position: number, index: number): boolean {
  if (signal === 'status') return call.status !== 'ok';
  if (typeof call.output !== 'string') {
    throw new Error(
      `resample-on-correct: trajectory ${position}: toolCalls[${index}].output must be the observation text for ` +
        `errorSignal 'output' (or pass errorSignal: 'status'), got ${String(call.output)}`,
    );
  }
  return call.output.toLowerCase().includes('error');
}

/**
 * rStar2-Agent's error ratio (microsoft/rStar@5e95b19 rstar2_agent/down_sample/roc.py,
 * calc_error_ratio_penalty_weights): the share of failed tool calls, 0.5 without any call.
 */
export function toolErrorPenalty(
  t: FilterableTrajectory,
  position: number,
  signal: ToolErrorSignal = 'output',
): number {
  const calls = toolCallsOf(t, position);
  if (calls.length === 0) return 0.5;
  return calls.filter((call, index) => failed(call, signal, position, index)).length / calls.length;
}

/**
 * rStar2-Agent's answer-format penalty (same file, answer_tag_repetition): 1 without a closed answer, with
 * unbalanced answer tags (an opening never closed) or without an ended turn after the first; else
 * min((answers - 1) / later turns, 1), so one answer is free and each repeat costs.
 */
export function answerFormatPenalty(t: FilterableTrajectory, position: number): number {
  const count = (field: 'answerCount' | 'answerOpenings' | 'laterTurns'): number => {
    const value = t[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new Error(
        `resample-on-correct: trajectory ${position}: field '${field}' must be an integer >= 0 for the answer-format ` +
          `penalty (set it with answerFormatFacts, or pass answerFormat: false), got ${String(value)}`,
      );
    }
    return value;
  };
  const [answers, openings, laterTurns] = [
    count('answerCount'),
    count('answerOpenings'),
    count('laterTurns'),
  ];
  if (answers === 0 || openings !== answers || laterTurns === 0) return 1;
  return Math.min((answers - 1) / laterTurns, 1);
}
