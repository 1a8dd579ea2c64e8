import { BenchmarkFormatError, type RecordedToolCall, type ToolUse, toolUseOf } from '@taorl/eval';
import { type JsonlRow, readJsonl } from '../benchmarks/jsonl';
import type { Gold } from '../grade';

/** One line of a samples file: a model response to a benchmark problem. */
export interface ResponseSample {
  readonly problemId: string;
  readonly response: string;
  readonly gold?: Gold;
  readonly responseTokens?: number;
  readonly toolCalls?: number;
  readonly toolFailures?: number;
  readonly codeLines?: number;
}

/**
 * Reads samples JSONL: problem_id (or id), response, and optionally gold (string or list), response_tokens, and
 * tool use: either tool_calls as the recorded calls (a list of {status, code}, counted by `toolUseOf`) or the
 * counts tool_calls, tool_failures, code_lines.
 */
export function readSamples(path: string): ResponseSample[] {
  return readJsonl(path).map((row) => {
    const problemId = row.optionalString('problem_id') ?? row.string('id');
    return {
      problemId,
      response: row.string('response'),
      ...optionalGold(row, path),
      ...count(row, path, 'response_tokens', 'responseTokens'),
      ...toolUse(row, path),
    };
  });
}

function toolUse(row: JsonlRow, path: string): Partial<ToolUse> {
  const calls = row.value.tool_calls;
  if (!Array.isArray(calls)) {
    return {
      ...count(row, path, 'tool_calls', 'toolCalls'),
      ...count(row, path, 'tool_failures', 'toolFailures'),
      ...count(row, path, 'code_lines', 'codeLines'),
    };
  }
  for (const field of ['tool_failures', 'code_lines']) {
    if (row.value[field] !== undefined && row.value[field] !== null) {
      throw new BenchmarkFormatError(
        `${path}:${row.line}: field "${field}" is counted from the recorded calls in "tool_calls"; give one or the other`,
      );
    }
  }
  return toolUseOf(calls.map((call, index) => recordedCall(call, `${path}:${row.line}`, index)));
}

function recordedCall(call: unknown, where: string, index: number): RecordedToolCall {
  const fields = call !== null && typeof call === 'object' ? (call as Record<string, unknown>) : undefined;
  for (const field of ['status', 'code']) {
    if (typeof fields?.[field] !== 'string') {
      throw new BenchmarkFormatError(
        `${where}: field "tool_calls[${index}].${field}" must be a string (a recorded call is {status, code})`,
      );
    }
  }
  return { status: fields!.status as string, code: fields!.code as string };
}

function optionalGold(row: JsonlRow, path: string): { gold?: Gold } {
  const gold = row.value.gold;
  if (gold === undefined || gold === null) return {};
  if (Array.isArray(gold) && gold.every((item) => typeof item === 'string')) return { gold };
  if (typeof gold === 'number' && Number.isFinite(gold)) return { gold: String(gold) };
  if (typeof gold === 'string') return { gold };
  throw new BenchmarkFormatError(
    `${path}:${row.line}: field "gold" must be a string, a number or a list of strings`,
  );
}

function count<K extends string>(
  row: JsonlRow,
  path: string,
  field: string,
  key: K,
): Partial<Record<K, number>> {
  const value = row.value[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new BenchmarkFormatError(`${path}:${row.line}: field "${field}" must be a non-negative integer`);
  }
  return { [key]: value } as Partial<Record<K, number>>;
}
