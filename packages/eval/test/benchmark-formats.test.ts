import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, gzipSync } from 'node:zlib';
import { createSandbox, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkFormatError, judgeProgram } from '../src/index';
import { loadCodeProblems, loadGpqa, loadLiveCodeBench } from '../src/node';

const fixtures = fileURLToPath(new URL('./fixtures/code-and-choice/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'taorl-formats-'));

describe('loadGpqa', () => {
  it('reads the release columns from CSV (quoted commas and line breaks) and JSONL alike', async () => {
    const fromCsv = await loadGpqa(join(fixtures, 'gpqa-format.csv'));
    const fromJsonl = await loadGpqa(join(fixtures, 'gpqa-format.jsonl'));
    expect(fromCsv).toEqual(fromJsonl);
    expect(fromCsv.map((problem) => problem.id)).toEqual(['recFixture01', 'recFixture02', 'recFixture03']);
    const nitrogen = fromCsv[1]!;
    expect(nitrogen.options).toContain('Carbon dioxide, "CO2"');
    expect(nitrogen.options[nitrogen.letters.indexOf(nitrogen.goldLetter)]).toBe('Nitrogen');
    expect(fromCsv[0]!.question).toContain('\nHow long');
    expect(nitrogen.domain).toBe('Chemistry');
  });

  it('orders options by the seed', async () => {
    const orders = await Promise.all(
      [0, 1, 2, 3, 4].map((seed) => loadGpqa(join(fixtures, 'gpqa-format.csv'), { seed })),
    );
    expect(
      new Set(orders.map((problems) => problems.map((problem) => problem.goldLetter).join(''))).size,
    ).toBeGreaterThan(1);
  });

  it('names the file, the line and the field of a bad record', async () => {
    const path = join(scratch, 'bad.jsonl');
    writeFileSync(
      path,
      '{"Question": "q", "Correct Answer": "a", "Incorrect Answer 1": "b", "Incorrect Answer 2": "c"}\n',
    );
    await expect(loadGpqa(path)).rejects.toThrow(`${path}:1: field "Incorrect Answer 3" is missing`);
    await expect(loadGpqa(join(scratch, 'x.txt'))).rejects.toThrow(BenchmarkFormatError);
  });
});

describe('loadLiveCodeBench', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ backend: 'local', workers: 1 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('decodes the pickled private tests in the sandbox and keeps the release window', async () => {
    const problems = await loadLiveCodeBench(join(fixtures, 'livecodebench-format.jsonl'), {
      runner: sandbox,
      from: '2025-01-01',
      to: '2025-05-01',
    });
    expect(problems.map((problem) => problem.id)).toEqual(['fx001', 'fx002']);
    const [sum, pair] = problems;
    expect(sum!.task).toEqual({
      id: 'fx001',
      kind: 'stdin',
      tests: [
        { input: '1 2\n', output: '3\n' },
        { input: '10 20\n', output: '30\n' },
        { input: '-5 5\n', output: '0\n' },
      ],
    });
    expect(sum!.publicTests).toBe(1);
    expect(pair!.task).toMatchObject({ kind: 'functional', method: 'twoSum' });
    expect(pair!.starterCode).toContain('class Solution');
    const judged = await judgeProgram(sandbox, 'a, b = map(int, input().split())\nprint(a + b)', sum!.task);
    expect(judged).toMatchObject({ passed: true, testsPassed: 3 });
  });

  it('reads only the public tests without a sandbox, and refuses a bad window', async () => {
    const problems = await loadLiveCodeBench(join(fixtures, 'livecodebench-format.jsonl'));
    expect(problems.map((problem) => problem.task.tests.length)).toEqual([1, 1, 1]);
    await expect(
      loadLiveCodeBench(join(fixtures, 'livecodebench-format.jsonl'), { from: '2025/01/01' }),
    ).rejects.toThrow('from must be a day YYYY-MM-DD');
  });

  it('names the question and the field of a malformed problem, and never unpickles in this process', async () => {
    const path = join(scratch, 'bad-lcb.jsonl');
    const row = {
      question_title: 't',
      question_content: 'c',
      platform: 'atcoder',
      question_id: 'q7',
      contest_date: '2025-02-01T00:00:00',
      difficulty: 'easy',
      public_test_cases: '[{"input": "1", "output": "1", "testtype": "stdin"}',
      private_test_cases: 'not base64 at all!',
      metadata: '{}',
    };
    writeFileSync(path, `${JSON.stringify(row)}\n`);
    await expect(loadLiveCodeBench(path)).rejects.toThrow(
      `${path}:1 (question q7): field "public_test_cases" is not JSON`,
    );
    writeFileSync(path, `${JSON.stringify({ ...row, public_test_cases: '[]' })}\n`);
    await expect(loadLiveCodeBench(path, { runner: sandbox })).rejects.toThrow(
      /\(question q7\): cannot decode field "private_test_cases" in the sandbox \(error: binascii.Error: Incorrect padding\)/,
    );
    // A pickle that runs a command when loaded: it runs inside the sandbox, where the host's /tmp is out of reach.
    const marker = join(scratch, 'unpickled-on-the-host');
    const hostile = deflateSync(Buffer.from(`cos\nsystem\n(S'touch ${marker}'\ntR.`, 'latin1')).toString(
      'base64',
    );
    writeFileSync(
      path,
      `${JSON.stringify({ ...row, public_test_cases: '[]', private_test_cases: hostile })}\n`,
    );
    await expect(loadLiveCodeBench(path, { runner: sandbox })).rejects.toThrow(
      /cannot decode field "private_test_cases"/,
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe('functional tests that are not JSON', () => {
  const functionalRow = {
    question_title: 't',
    question_content: 'c',
    platform: 'leetcode',
    question_id: 'q9',
    contest_date: '2025-02-01T00:00:00',
    difficulty: 'easy',
    public_test_cases: JSON.stringify([
      { input: '[1, 2]\n3', output: '[0, 1]', testtype: 'functional' },
      { input: 'nums = [1, 2]', output: '[0, 1]', testtype: 'functional' },
    ]),
    private_test_cases: '',
    metadata: '{"func_name": "twoSum"}',
  };

  it("are refused at load in LiveCodeBench's layout, naming the file, row, field and line", async () => {
    const path = join(scratch, 'not-json-lcb.jsonl');
    writeFileSync(path, `${JSON.stringify(functionalRow)}\n`);
    await expect(loadLiveCodeBench(path)).rejects.toThrow(
      `${path}:1 (question q9): public_test_cases[1].input line 1 is not JSON (expected a value at offset 0): "nums = [1, 2]"`,
    );
  });

  it("are refused at load in taorl's code layout (task.name: code), output included", async () => {
    const path = join(scratch, 'not-json-code.jsonl');
    const row = { id: 'p1', question: 'q', method: 'twice', tests: [{ input: '3', output: '6' }] };
    writeFileSync(
      path,
      `${JSON.stringify(row)}\n${JSON.stringify({ ...row, id: 'p2', tests: [{ input: '3', output: "'6'" }] })}\n`,
    );
    await expect(loadCodeProblems(path)).rejects.toThrow(`${path}:2: tests[0].output is not JSON`);
    // Standard-input tests are text: anything goes.
    writeFileSync(
      path,
      `${JSON.stringify({ id: 'p3', question: 'q', tests: [{ input: 'x y', output: "'6'" }] })}\n`,
    );
    expect((await loadCodeProblems(path))[0]?.task.kind).toBe('stdin');
  });

  it('reads a gzipped JSONL file (.jsonl.gz) as the plain one', async () => {
    const path = join(scratch, 'code.jsonl.gz');
    const row = { id: 'p1', question: 'q', method: 'twice', tests: [{ input: '3', output: '6' }] };
    writeFileSync(path, gzipSync(`${JSON.stringify(row)}\n`));
    expect(await loadCodeProblems(path)).toEqual([
      {
        id: 'p1',
        question: 'q',
        starterCode: '',
        task: { id: 'p1', kind: 'functional', method: 'twice', tests: row.tests },
      },
    ]);
  });
});
