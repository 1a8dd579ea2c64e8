import {
  EXEC_STATUSES,
  type ExecResult,
  type ExecStatus,
  markdownFormat,
  type Sandbox,
} from '@taorl/sandbox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CodeRunner, TOOL_CALL_STATUSES, type ToolCallFormat, type ToolCallStatus } from '../src/index';

// @taorl/data declares the sandbox's statuses and interfaces structurally so it loads without the sandbox; these
// checks fail when the two drift apart.
describe('structural sandbox types', () => {
  it('TOOL_CALL_STATUSES lists the sandbox statuses, in its order', () => {
    expect(TOOL_CALL_STATUSES).toEqual(EXEC_STATUSES);
    expectTypeOf<ToolCallStatus>().toEqualTypeOf<ExecStatus>();
  });

  it('a sandbox is a CodeRunner and its markdown format a ToolCallFormat', () => {
    expectTypeOf<Sandbox>().toMatchTypeOf<CodeRunner<ExecResult>>();
    expectTypeOf(markdownFormat).toMatchTypeOf<ToolCallFormat<ExecResult>>();
  });
});
