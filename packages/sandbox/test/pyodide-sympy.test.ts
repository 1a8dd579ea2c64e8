import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type PyodideSandbox } from '../src/index';

// sympy and mpmath offline in the pyodide backend: Debian's python3-sympy files, compiled once into the snapshot's
// site zip and imported before the snapshot (the default options), so that a run finds sympy already imported.
const debianSympy = existsSync('/usr/lib/python3/dist-packages/sympy/__init__.py');
let sandbox: PyodideSandbox;

describe.skipIf(!debianSympy)('pyodide backend: sympy and mpmath from the site packages', () => {
  beforeAll(async () => {
    sandbox = await createSandbox({ backend: 'pyodide', workers: 1 });
  }, 900_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  it('has sympy and mpmath by default, offline', async () => {
    expect(sandbox.packages).toEqual(['sympy', 'mpmath']);
    const result = await sandbox.run({
      code:
        'import sys, mpmath, sympy as sp\nx = sp.Symbol("x")\n' +
        'print(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))\nprint(mpmath.mp.dps, "sympy" in sys.modules)',
    });
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({
      status: 'ok',
      stdout: '(x - 1)*(x + 1)*(x**2 - x + 1)*(x**2 + x + 1) x/2 - sin(x)*cos(x)/2\n15 True\n',
    });
  }, 300_000);

  it('imports a submodule that sympy does not import itself, from the zip', async () => {
    const result = await sandbox.run({
      code: 'from sympy.parsing.sympy_parser import parse_expr\nprint(parse_expr("2*x + x"))',
    });
    expect(result).toMatchObject({ status: 'ok', stdout: '3*x\n' });
  }, 300_000);
});
