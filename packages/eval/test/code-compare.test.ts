import { describe, expect, it } from 'vitest';
import { compareStdout, extractProgram, PyJsonError, parsePyJson, pyEqual } from '../src/index';
import { jsonCases, stdoutCases } from './code-compare-cases';

describe('compareStdout (LiveCodeBench rules)', () => {
  it.each(stdoutCases)('%j vs %j -> %s', (actual, expected, equal) => {
    expect(compareStdout(actual, expected).equal).toBe(equal);
  });

  it('says which line differed', () => {
    expect(compareStdout('1\n2\n4', '1\n2\n3')).toEqual({ equal: false, reason: 'line 2: "4" != "3"' });
    expect(compareStdout('1', '1\n2').reason).toBe('1 output lines, expected 2');
  });

  it('compares 200,000 lines with trailing spaces', () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `${index} ${index * 0.5}`);
    expect(compareStdout(lines.join('\n'), lines.map((line) => `${line} `).join('\n')).equal).toBe(true);
  });
});

describe('pyEqual (Python equality of json.loads values)', () => {
  it.each(jsonCases)('%s == %s -> %s', (actual, expected, equal) => {
    expect(pyEqual(parsePyJson(actual), parsePyJson(expected))).toBe(equal);
  });

  it('refuses what json.loads refuses, naming the offset', () => {
    for (const bad of ['[1,]', '{1: 2}', "'a'", '01', '[1] 2', '"\u0001"', '']) {
      expect(() => parsePyJson(bad), bad).toThrow(PyJsonError);
    }
    expect(() => parsePyJson('[1, x]')).toThrow('expected a value at offset 4');
  });
});

describe('extractProgram', () => {
  it('takes the last python or unmarked block, never a tool output', () => {
    const response = [
      'Try it:',
      '```python',
      'print(1)',
      '```',
      '```output',
      '1',
      '```',
      'Final:',
      '```py',
      'a, b = map(int, input().split())',
      'print(a + b)',
      '```',
      '```output',
      'EOFError',
      '```',
      'Done.',
    ].join('\n');
    expect(extractProgram(response)).toBe('a, b = map(int, input().split())\nprint(a + b)');
    expect(extractProgram('```\nprint(2)\n```')).toBe('print(2)');
    expect(extractProgram('```cpp\nint main() {}\n```')).toBeNull();
    expect(extractProgram('no code')).toBeNull();
    expect(extractProgram('```python\n\n```')).toBeNull();
  });
});
