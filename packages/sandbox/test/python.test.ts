import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pythonProgram } from '../src/python-programs';
import { boundedProgram } from '../src/remote/bounded-program';

// The package's Python (python/*.py and its tests) checked as Python: it compiles, pyflakes (Debian's pyflakes3,
// installed by scripts/setup.sh) finds nothing, the cell runner's own tests pass, and the programs as assembled
// for `python3 -c` and for SandboxFusion compile too.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const pythonFiles = ['python', 'python/tests'].flatMap((dir) =>
  readdirSync(`${packageDir}/${dir}`)
    .filter((name) => name.endsWith('.py'))
    .map((name) => `${dir}/${name}`),
);

function run(command: string, args: readonly string[], input?: string) {
  const result = spawnSync(command, args, { cwd: packageDir, encoding: 'utf8', input, timeout: 120_000 });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  return { status: result.status, output: result.stdout + result.stderr };
}

/** Compiles a program text as `python3 -c` would, without running it; the output names the first error. */
function compileProgram(source: string) {
  return run('python3', ['-c', 'import sys; compile(sys.stdin.read(), "<program>", "exec")'], source);
}

describe('the Python programs', () => {
  it('finds the cell runner, the worker, the SandboxFusion program and the tests', () => {
    expect(pythonFiles).toEqual(
      expect.arrayContaining([
        'python/cell_runner.py',
        'python/worker.py',
        'python/sandboxfusion_program.py',
        'python/pyodide_runner.py',
        'python/tests/test_cell_runner.py',
      ]),
    );
  });

  it('compiles and has no pyflakes warning', () => {
    for (const file of pythonFiles) {
      expect(compileProgram(run('cat', [file]).output), file).toEqual({ status: 0, output: '' });
    }
    expect(run('pyflakes3', pythonFiles)).toEqual({ status: 0, output: '' });
  });

  it("passes the cell runner's own tests", () => {
    const result = run('python3', ['python/tests/test_cell_runner.py']);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(/^Ran \d+ tests/m);
  });

  it('assembles each program with the cell runner in place of its import', () => {
    const programs = [
      pythonProgram('worker'),
      pythonProgram('pyodide_runner'),
      boundedProgram('print(1)', ['x = 1'], { pipeBytes: 4097, keepBytes: 8193, memoryBytes: 2 ** 30 }),
    ];
    for (const program of programs) {
      expect(program).not.toMatch(/^from cell_runner import/m);
      expect(program).toMatch(/^def run_code_and_exit\(/m);
      expect(compileProgram(program)).toEqual({ status: 0, output: '' });
    }
  });
});
