// Code each worker runs once after its imports, before it forks any child. Libraries such as sympy initialise
// lazily and cache (polynomial domains, assumptions, the @cacheit caches); a child forked from a cold worker
// repeats that work on every call (measured: sympy's factor 44 ms cold, 5 ms warm, in-process), a child of a
// warm worker inherits the result. It is trusted code of ours; its stdout is discarded, its stderr kept for
// diagnostics.
const WARMUPS: Record<string, string> = {
  sympy: `
import sympy as sp
x, y = sp.symbols("x y")
sp.factor(x**6 - 1); sp.expand((x + y)**5); sp.simplify(sp.sin(x)**2 + sp.cos(x)**2)
sp.solve(x**2 - 2, x); sp.integrate(sp.sin(x)**2, x); sp.diff(sp.exp(x) * x, x)
sp.Rational(1, 3) + sp.sqrt(8); sp.nsimplify(0.5); sp.latex(x**2 / 3); sp.N(sp.pi, 30)
sp.limit(sp.sin(x) / x, x, 0); sp.series(sp.exp(x), x, 0, 4); sp.Matrix([[1, 2], [3, 4]]).det()
sp.isprime(97); sp.factorint(360); sp.binomial(10, 3); sp.summation(x, (x, 1, 10)); str(sp.Eq(x, 1))
`,
  numpy: `
import numpy as np
np.linalg.solve(np.eye(3), np.ones(3)); np.arange(10).reshape(2, 5).sum(axis=0); np.sqrt(np.linspace(0, 1, 5))
`,
};

/** The default warm-up for a list of preloaded modules: ours for sympy and numpy, nothing for the others. */
export function defaultWarmup(preload: readonly string[]): string {
  return preload.map((module) => WARMUPS[module] ?? '').join('\n');
}
