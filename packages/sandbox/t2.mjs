import { loadPyodide } from 'pyodide';
import Module from 'node:module';
const py = await loadPyodide({ jsglobals: Object.create(null) });
const M = py._module;
console.log(Object.keys(M).filter(k=>/FS|NODE|sock/i.test(k)));
Module._load = function (request) { if (/child_process/.test(request)) return { spawnSync: () => ({ status: 127, signal: null }) }; throw new Error('blocked ' + request); };
M.SOCKFS.createSocket = () => { throw new M.FS.ErrnoError(63); };
for (const k of ['NODEFS','NODERAWFS','PROXYFS','WORKERFS','IDBFS','NATIVEFS_ASYNC']) delete py.FS.filesystems[k];
py.unregisterJsModule('pyodide_js');
py.runPython(`import sys\nfor m in ['js','pyodide_js']:\n    sys.modules.pop(m, None)`);
for (const c of [
 'import os; print(os.system("id"))',
 'import pyodide_js; print(pyodide_js.FS)',
 'from pyodide.ffi import create_proxy; p = create_proxy(lambda: 0); print(p.constructor.constructor("return 1+1")())',
 'from pyodide.ffi import create_proxy; p = create_proxy(lambda: 0); print(p.constructor, dir(p))',
 'import gc\nfrom pyodide.ffi import JsProxy\nxs=[o for o in gc.get_objects() if isinstance(o, JsProxy)]\nprint(len(xs), [type(x).__name__ for x in xs][:20])\nprint([str(x)[:60] for x in xs][:20])',
 'import ctypes; print(ctypes.CDLL(None).system(b"id"))',
 'import socket; s=socket.create_connection(("127.0.0.1",9),timeout=2); print(s)',
 'import _pyodide_core; print(_pyodide_core.raw_call)',
 'from pyodide.ffi import run_sync; print(1)',
]) {
  try { console.log(c, '=>', py.runPython(c)); } catch (e) { console.log(c, 'ERR', String(e).split('\n').slice(-2).join(' ')); }
}
