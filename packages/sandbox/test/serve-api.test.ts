import { describe, expect, it } from 'vitest';
import { EXEC_STATUSES, type ExecResult, type ExecStatus } from '../src/index';
import { toExecRequest, toRunCodeResponse } from '../src/serve/run-code-api';

// The mapping between SandboxFusion's /run_code and @taorl/sandbox, without a sandbox (unit tier).

const bounds = { maxRunTimeoutMs: 60_000, maxMemoryMb: 4096 };

function result(status: ExecStatus, extra: Partial<ExecResult> = {}): ExecResult {
  return {
    status,
    exitCode: null,
    signal: null,
    stdout: 'out',
    stderr: 'err',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 250,
    ...extra,
  };
}

describe('SandboxFusion /run_code <-> ExecRequest / ExecResult', () => {
  it('reads a verl request: seconds to ms, -1 memory as the server default, null stdin as empty', () => {
    expect(
      toExecRequest(
        {
          compile_timeout: 10,
          run_timeout: 2.5,
          code: 'print(1)',
          stdin: null,
          memory_limit_MB: -1,
          language: 'python',
          files: { 'a/b.txt': 'aGk=', 'skipped.txt': null },
          fetch_files: ['out.txt'],
        },
        bounds,
      ),
    ).toEqual({
      code: 'print(1)',
      stdin: '',
      timeoutMs: 2500,
      files: [{ path: 'a/b.txt', content: new Uint8Array(Buffer.from('hi')) }],
      fetchFiles: ['out.txt'],
    });
    expect(toExecRequest({ code: '', language: 'python', memory_limit_MB: 256 }, bounds)).toMatchObject({
      timeoutMs: 10_000,
      memoryMb: 256,
    });
  });

  const cases: [ExecResult, string, string, number | null][] = [
    [result('ok', { exitCode: 0 }), 'Success', 'Finished', 0],
    [result('error', { exitCode: 3 }), 'Failed', 'Finished', 3],
    [result('memory', { exitCode: 1 }), 'Failed', 'Finished', 1],
    [result('memory', { signal: 'SIGKILL' }), 'Failed', 'Finished', -9],
    [result('killed', { signal: 'SIGABRT' }), 'Failed', 'Finished', -6],
    [result('output_limit', { signal: 'SIGKILL', stdoutTruncated: true }), 'Failed', 'Finished', -9],
    [result('timeout', { signal: 'SIGKILL' }), 'Failed', 'TimeLimitExceeded', null],
    [result('sandbox_error', { sandboxMessage: 'worker exited' }), 'SandboxError', 'Error', null],
  ];

  it.each(cases)('maps %j to %s / %s, return code %s', (execResult, status, runStatus, returnCode) => {
    const answer = toRunCodeResponse(execResult);
    expect(answer).toMatchObject({
      status,
      run_result: { status: runStatus, return_code: returnCode, execution_time: 0.25, stdout: 'out' },
      taorl: { status: execResult.status, signal: execResult.signal },
    });
    expect(answer.message).toBe(status === 'SandboxError' ? 'worker exited' : '');
  });

  it('covers every status', () => {
    expect(new Set(cases.map(([execResult]) => execResult.status))).toEqual(new Set(EXEC_STATUSES));
  });

  it('returns fetched files as base64 by path', () => {
    const answer = toRunCodeResponse(
      result('ok', { exitCode: 0, files: [{ path: 'o/x.bin', content: new Uint8Array([0, 255]) }] }),
    );
    expect(answer.files).toEqual({ 'o/x.bin': 'AP8=' });
  });
});
