import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareStdout, parsePyJson, pyEqual } from '../src/index';
import { jsonCases, stdoutCases } from './code-compare-cases';

// Debian's python3 (the sandbox's), or any python3 on PATH: only the standard library is used.
const python = ['/usr/bin/python3', 'python3'].find((candidate) => {
  try {
    execFileSync(candidate, ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
});
const reference = fileURLToPath(new URL('./reference/lcb_compare.py', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe("the package's Python", () => {
  it("has no pyflakes warning (Debian's pyflakes3, installed by scripts/setup.sh)", () => {
    const files = ['python', 'test/reference'].flatMap((dir) =>
      readdirSync(join(packageDir, dir))
        .filter((name) => name.endsWith('.py'))
        .map((name) => join(dir, name)),
    );
    expect(files.length).toBeGreaterThan(4);
    const result = spawnSync('pyflakes3', files, { cwd: packageDir, encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({
      status: 0,
      output: '',
    });
  });
});

describe('the output comparison against Python', () => {
  it('gives the verdict of str.strip / Decimal / json.loads on every tricky pair', () => {
    if (python === undefined) throw new Error('no python3 found: the reference needs one');
    const pairs = {
      stdout: stdoutCases.map(([actual, expected]) => [actual, expected]),
      json: jsonCases.map(([actual, expected]) => [actual, expected]),
    };
    const verdicts = JSON.parse(
      execFileSync(python, [reference], { input: JSON.stringify(pairs) }).toString(),
    ) as {
      stdout: boolean[];
      json: boolean[];
    };
    expect(stdoutCases.map(([actual, expected]) => compareStdout(actual, expected).equal)).toEqual(
      verdicts.stdout,
    );
    expect(
      jsonCases.map(([actual, expected]) => pyEqual(parsePyJson(actual), parsePyJson(expected))),
    ).toEqual(verdicts.json);
    // The cases' own expectations are Python's too, so a wrong expectation cannot hide a wrong comparison.
    expect(stdoutCases.map(([, , equal]) => equal)).toEqual(verdicts.stdout);
    expect(jsonCases.map(([, , equal]) => equal)).toEqual(verdicts.json);
  });
});
