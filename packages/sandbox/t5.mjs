import { loadPyodide } from 'pyodide';
import { readFileSync } from 'node:fs';
let t = performance.now();
const py = await loadPyodide({ _loadSnapshot: readFileSync('/tmp/pyo/snap2.bin'), jsglobals: Object.create(null) });
py.FS.writeFile('/lib/taorl-site.zip', readFileSync('/tmp/pyo/site.zip'));
console.log('load', performance.now() - t); t = performance.now();
py.runPython('import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))\nimport sympy.parsing.latex');
console.log('run', performance.now() - t);
