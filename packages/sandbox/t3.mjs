import { loadPyodide } from 'pyodide';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const t = performance.now();
if (process.argv[2] === 'make') {
  const py = await loadPyodide({ _makeSnapshot: true, jsglobals: Object.create(null) });
  writeFileSync('/tmp/pyo/snap.bin', py.makeMemorySnapshot());
} else if (process.argv[2] === 'snap') {
  const py = await loadPyodide({ _loadSnapshot: readFileSync('/tmp/pyo/snap.bin'), jsglobals: Object.create(null) });
  py.runPython('1');
} else { const py = await loadPyodide({ jsglobals: Object.create(null) }); py.runPython('1'); }
console.log(process.argv[2], performance.now() - t);
