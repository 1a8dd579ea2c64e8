import { DataError, type DataLocation } from '../errors';
import { TOOL_CALL_STATUSES, type ToolCall, type Trajectory } from './types';

export interface ValidateTrajectoryOptions {
  /** When given, every token id must be below it. */
  vocabSize?: number;
  /** Where the value came from, for the error message. */
  location?: DataLocation;
}

type Issues = string[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkTokenIds(
  issues: Issues,
  name: string,
  ids: unknown,
  vocabSize: number | undefined,
): ids is Int32Array {
  if (!(ids instanceof Int32Array)) {
    issues.push(`"${name}" must be an Int32Array, got ${describeType(ids)}`);
    return false;
  }
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    if (id < 0 || (vocabSize !== undefined && id >= vocabSize)) {
      issues.push(
        `"${name}[${i}]" is ${id}, outside the vocabulary [0, ${vocabSize ?? '2^31'})` +
          (vocabSize === undefined ? '' : ' (is this trajectory from another tokenizer?)'),
      );
      return false;
    }
  }
  return true;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a plain array';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}

function checkToolCall(
  issues: Issues,
  call: unknown,
  index: number,
  trajectory: Record<string, unknown>,
): void {
  const at = `toolCalls[${index}]`;
  if (!isRecord(call)) {
    issues.push(`"${at}" must be an object, got ${describeType(call)}`);
    return;
  }
  if (!TOOL_CALL_STATUSES.includes(call.status as ToolCall['status'])) {
    issues.push(
      `"${at}.status" is ${JSON.stringify(call.status)}; expected one of ${TOOL_CALL_STATUSES.join(', ')}`,
    );
  }
  for (const key of ['code', 'output'] as const) {
    if (typeof call[key] !== 'string')
      issues.push(`"${at}.${key}" must be a string, got ${describeType(call[key])}`);
  }
  const { startToken, endToken } = call;
  if (!Number.isInteger(startToken) || !Number.isInteger(endToken)) {
    issues.push(`"${at}.startToken" and "${at}.endToken" must be integers`);
    return;
  }
  const length = trajectory.responseIds instanceof Int32Array ? trajectory.responseIds.length : 0;
  const start = startToken as number;
  const end = endToken as number;
  if (start < 0 || end < start || end > length) {
    issues.push(
      `"${at}" spans tokens [${start}, ${end}), which is not a range inside the ${length} response tokens`,
    );
    return;
  }
  const mask = trajectory.lossMask;
  if (mask instanceof Uint8Array && mask.length === length) {
    for (let t = start; t < end; t++) {
      if (mask[t] !== 0) {
        issues.push(`"${at}" observation token ${t} has lossMask 1; tool output must never be trained on`);
        return;
      }
    }
  }
}

/**
 * Checks that `value` is a well-formed Trajectory and returns it typed. Throws one DataError listing every
 * problem found (field by field), prefixed with the location when given.
 */
export function validateTrajectory(value: unknown, options: ValidateTrajectoryOptions = {}): Trajectory {
  const issues: Issues = [];
  if (!isRecord(value)) {
    throw new DataError(`a trajectory must be an object, got ${describeType(value)}`, options.location);
  }
  if (typeof value.groupId !== 'string' || value.groupId === '') {
    issues.push(`"groupId" must be a non-empty string, got ${JSON.stringify(value.groupId)}`);
  }
  checkTokenIds(issues, 'promptIds', value.promptIds, options.vocabSize);
  const hasResponse = checkTokenIds(issues, 'responseIds', value.responseIds, options.vocabSize);
  const length = hasResponse ? (value.responseIds as Int32Array).length : -1;
  const columns = [
    ['lossMask', Uint8Array],
    ['oldLogProbs', Float32Array],
    ['entropies', Float32Array],
  ] as const;
  for (const [name, type] of columns) {
    const column = value[name];
    if (!(column instanceof type)) {
      issues.push(`"${name}" must be a ${type.name}, got ${describeType(column)}`);
    } else if (hasResponse && column.length !== length) {
      issues.push(
        `"${name}" has ${column.length} entries but responseIds has ${length}; need one per response token`,
      );
    }
  }
  if (value.lossMask instanceof Uint8Array) {
    const bad = value.lossMask.findIndex((m) => m > 1);
    if (bad >= 0) issues.push(`"lossMask[${bad}]" is ${value.lossMask[bad]}; only 0 and 1 are allowed`);
  }
  for (const name of ['oldLogProbs', 'entropies'] as const) {
    const column = value[name];
    if (column instanceof Float32Array) {
      const bad = column.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0) issues.push(`"${name}[${bad}]" is ${column[bad]}; values must be finite`);
    }
  }
  if (!Array.isArray(value.toolCalls)) {
    issues.push(`"toolCalls" must be an array, got ${describeType(value.toolCalls)}`);
  } else {
    value.toolCalls.forEach((call, i) => {
      checkToolCall(issues, call, i, value);
    });
    for (let i = 1; i < value.toolCalls.length; i++) {
      const previous = value.toolCalls[i - 1] as ToolCall;
      const current = value.toolCalls[i] as ToolCall;
      if (current.startToken < previous.endToken) {
        issues.push(
          `"toolCalls[${i}]" starts at token ${current.startToken}, before toolCalls[${i - 1}] ends`,
        );
      }
    }
  }
  if (typeof value.reward !== 'number' || !Number.isFinite(value.reward)) {
    issues.push(`"reward" must be a finite number, got ${JSON.stringify(value.reward)}`);
  }
  for (const name of ['correct', 'truncated'] as const) {
    if (typeof value[name] !== 'boolean')
      issues.push(`"${name}" must be a boolean, got ${describeType(value[name])}`);
  }
  if (typeof value.text !== 'string') issues.push(`"text" must be a string, got ${describeType(value.text)}`);
  if (issues.length > 0) {
    throw new DataError(`invalid trajectory: ${issues.join('; ')}`, options.location);
  }
  return value as unknown as Trajectory;
}
