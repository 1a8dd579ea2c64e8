import { pythonProgram } from '../python-programs';
import { InterpreterProcess } from './interpreter-process';
import { type PyodideSandboxOptions, resolvePyodideOptions } from './options';
import { type PyodideSandbox, startPyodidePool } from './pyodide-sandbox';
import { packagePresent, readPackages } from './site-packages';

/** The pyodide backend in Node: each interpreter a child process, the packages read from `sitePackages`. */
export async function createPyodideSandbox(options: PyodideSandboxOptions = {}): Promise<PyodideSandbox> {
  const resolved = resolvePyodideOptions(options, packagePresent);
  const files = readPackages(resolved.sitePackages, resolved.packages);
  return startPyodidePool(
    resolved,
    files,
    pythonProgram('pyodide_runner'),
    () => new InterpreterProcess(),
    true,
  );
}
