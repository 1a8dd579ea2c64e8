import { describe, expect, it } from 'vitest';
import { EXEC_STATUSES, type ExecResult, type ExecStatus } from '../src/index';
import { type RunCodeNotes, toExecRequest, toRunCodeResponse } from '../src/serve/run-code-api';

// The mapping between SandboxFusion's /run_code and @taorl/sandbox, without a sandbox (unit tier).

const bounds = { maxRunTimeoutMs: 60_000, maxMemoryMb: 4096 };
const noNotes = (): RunCodeNotes => ({ clamped: {}, ignoredFields: [], fetchNames: new Map() });

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
  it('reads a verl request: seconds to ms, -1 memory as the maximum (reported), null stdin as empty', () => {
    const served = toExecRequest(
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
    );
    expect(served.request).toEqual({
      code: 'print(1)',
      stdin: '',
      timeoutMs: 2500,
      memoryMb: 4096,
      files: [{ path: 'a/b.txt', content: new Uint8Array(Buffer.from('hi')) }],
      fetchFiles: ['out.txt'],
    });
    expect(served.notes.clamped).toEqual({ memory_limit_MB: { requested: -1, applied: 4096 } });
    expect(toExecRequest({ code: '', language: 'python', memory_limit_MB: 256 }, bounds)).toMatchObject({
      request: { timeoutMs: 10_000, memoryMb: 256 },
      notes: { clamped: {}, ignoredFields: [] },
    });
  });

  // What SandboxFusion's pydantic model accepts is run, within the server's maxima; each adjustment is reported.
  // Numeric text is a number, as pydantic's lax mode reads it (not the default: "5" is 5 s, not 10).
  it.each([
    [{ run_timeout: 600 }, { timeoutMs: 60_000 }, { run_timeout: { requested: 600, applied: 60 } }],
    [{ run_timeout: '2.5' }, { timeoutMs: 2500 }, {}],
    [{ run_timeout: '5' }, { timeoutMs: 5000 }, {}],
    [{ memory_limit_MB: -1 }, { memoryMb: 4096 }, { memory_limit_MB: { requested: -1, applied: 4096 } }],
    [
      { memory_limit_MB: 10_000 },
      { memoryMb: 4096 },
      { memory_limit_MB: { requested: 10_000, applied: 4096 } },
    ],
    [{ memory_limit_MB: 512.0 }, { memoryMb: 512 }, {}],
  ])('applies %j as %j, reporting %j', (fields, applied, clamped) => {
    const served = toExecRequest({ code: '', language: 'python', memory_limit_MB: 1024, ...fields }, bounds);
    expect(served.request).toMatchObject(applied);
    expect(served.notes.clamped).toEqual(clamped);
  });

  it('ignores unknown fields as pydantic does, and names them in the notes', () => {
    const served = toExecRequest({ code: '', language: 'python', cells: [], extra: 1 }, bounds);
    expect(served.notes.ignoredFields).toEqual(['cells', 'extra']);
  });

  it('resolves "." and ".." inside the scratch space; absolute paths under the run\'s own directories', () => {
    const served = toExecRequest(
      {
        code: '',
        language: 'python',
        files: { './a//b.txt': 'aGk=', 'x/../c.txt': 'aGk=', '/mnt/in.txt': 'aGk=' },
        fetch_files: ['out.txt', './out.txt', '/tmp/o'],
      },
      bounds,
    );
    expect(served.request.files?.map((file) => file.path)).toEqual(['a/b.txt', 'c.txt', '/mnt/in.txt']);
    expect(served.request.fetchFiles).toEqual(['out.txt', '/tmp/o']);
    expect(served.notes.fetchNames.get('out.txt')).toEqual(['out.txt', './out.txt']);
  });

  it.each([
    [
      '../escape.txt in files',
      { files: { '../escape.txt': 'aGk=' } },
      /files key "..\/escape.txt" leaves the run's scratch/,
    ],
    [
      'a/../../x in fetch_files',
      { fetch_files: ['a/../../x'] },
      /fetch_files\[0\] leaves the run's scratch directory, got "a/,
    ],
    [
      '/etc/passwd in fetch_files',
      { fetch_files: ['/etc/passwd'] },
      /fetch_files\[0\] "\/etc\/passwd" is absolute: only paths under \/tmp/,
    ],
    [
      'a path past PATH_MAX',
      { files: { [`${'a/'.repeat(2100)}f`]: 'aGk=' } },
      /files key "a\/a.*is too long for the file system: at most 4064 bytes/,
    ],
    ['a run_timeout in words', { run_timeout: 'soon' }, /run_timeout must be a number, got "soon"/],
    ['a fractional memory_limit_MB', { memory_limit_MB: 0.5 }, /memory_limit_MB must be an integer, got 0.5/],
    // Limits SandboxFusion would turn into a run timed out at once, or into no limit by accident (they were read
    // as the server's maximum).
    ['run_timeout 0', { run_timeout: 0 }, /^run_timeout must be > 0 seconds \(leave it out for 10\), got 0$/],
    ['run_timeout -1', { run_timeout: -1 }, /^run_timeout must be > 0 seconds .*, got -1$/],
    ['run_timeout "0"', { run_timeout: '0' }, /^run_timeout must be > 0 seconds .*, got "0"$/],
    [
      'memory_limit_MB 0',
      { memory_limit_MB: 0 },
      /^memory_limit_MB must be >= 1, or -1 for no limit of its own \(the server's maximum, 4096 MB\), got 0$/,
    ],
    ['memory_limit_MB -5', { memory_limit_MB: -5 }, /^memory_limit_MB must be >= 1, or -1 .*, got -5$/],
    [
      'language cpp',
      { language: 'cpp' },
      /language "cpp" is not supported by this server; supported: python, pytest/,
    ],
  ])('refuses %s naming the field', (_name, fields, message) => {
    expect(() => toExecRequest({ code: '', language: 'python', ...fields }, bounds)).toThrow(message);
  });

  it('runs language pytest as pytest on the code written to a file no other file takes', () => {
    const served = toExecRequest(
      { code: 'def test_x():\n    pass\n', language: 'pytest', files: { 'test_code.py': 'aGk=' } },
      bounds,
    );
    expect(served.request.files?.map((file) => file.path)).toEqual(['test_code.py', 'test_code_1.py']);
    expect(served.request.code).toMatch(/pytest\.main\(\["test_code_1\.py"\]\)/);
  });

  const cases: [ExecResult, string, string, number | null][] = [
    [result('ok', { exitCode: 0 }), 'Success', 'Finished', 0],
    [result('error', { exitCode: 3 }), 'Failed', 'Finished', 3],
    [result('memory', { exitCode: 1 }), 'Failed', 'Finished', 1],
    [result('memory', { signal: 'SIGKILL' }), 'Failed', 'Finished', -9],
    [result('killed', { signal: 'SIGABRT' }), 'Failed', 'Finished', -6],
    [result('output_limit', { signal: 'SIGKILL', stdoutTruncated: true }), 'Failed', 'Finished', -9],
    // The program may have ended on its own before the sandbox stopped it: the same answer.
    [result('output_limit', { exitCode: 0, stdoutTruncated: true }), 'Failed', 'Finished', -9],
    [result('timeout', { signal: 'SIGKILL' }), 'Failed', 'TimeLimitExceeded', null],
    [result('sandbox_error', { sandboxMessage: 'worker exited' }), 'SandboxError', 'Error', null],
  ];

  it.each(cases)('maps %j to %s / %s, return code %s', (execResult, status, runStatus, returnCode) => {
    const answer = toRunCodeResponse(execResult, noNotes());
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
      noNotes(),
    );
    expect(answer.files).toEqual({ 'o/x.bin': 'AP8=' });
  });

  it('keeps a fetched file named __proto__, under every spelling the request used', () => {
    const notes = noNotes();
    notes.fetchNames.set('__proto__', ['__proto__', './__proto__']);
    const answer = toRunCodeResponse(
      result('ok', { exitCode: 0, files: [{ path: '__proto__', content: new Uint8Array([104, 105]) }] }),
      notes,
    );
    expect(JSON.parse(JSON.stringify(answer)).files).toEqual(
      JSON.parse('{"__proto__": "aGk=", "./__proto__": "aGk="}'),
    );
  });
});
