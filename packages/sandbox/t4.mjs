import { loadPyodide } from 'pyodide';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
const base = '/usr/lib/python3/dist-packages';
const files = [];
const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) { if (e.name !== 'tests' && e.name !== '__pycache__') walk(p); } else if (e.name.endsWith('.py')) files.push([relative(base, p), readFileSync(p)]); } };
walk(join(base, 'sympy')); walk(join(base, 'mpmath'));
let t = performance.now();
const py = await loadPyodide({ _makeSnapshot: true, jsglobals: Object.create(null) });
console.log('load', performance.now() - t); t = performance.now();
for (const [p, b] of files) { const full = '/tmp/site/' + p; py.FS.mkdirTree(full.slice(0, full.lastIndexOf('/'))); py.FS.writeFile(full, b); }
py.runPython(`
import zipfile, os, shutil
with zipfile.ZipFile('/lib/taorl-site.zip', 'w', zipfile.ZIP_STORED) as z:
    for root, dirs, names in os.walk('/tmp/site'):
        for n in sorted(names):
            full = os.path.join(root, n)
            z.write(full, os.path.relpath(full, '/tmp/site'))
shutil.rmtree('/tmp/site')
import sys; sys.path.append('/lib/taorl-site.zip')
`);
console.log('zip', performance.now() - t); t = performance.now();
try { py.runPython('import sympy; print(sympy.__version__)'); } catch (e) { console.log(String(e).slice(-600)); }
console.log('import sympy', performance.now() - t); t = performance.now();
const zip = py.FS.readFile('/lib/taorl-site.zip');
const snap = py.makeMemorySnapshot();
console.log('snap', snap.length, 'zip', zip.length);
writeFileSync('/tmp/pyo/snap2.bin', snap); writeFileSync('/tmp/pyo/site.zip', zip);
