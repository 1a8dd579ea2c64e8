import { pythonProgram } from '../python-programs';

/**
 * The Python program the SandboxFusion backend submits for a cell: python/sandboxfusion_program.py (which says how
 * it bounds the output SandboxFusion would otherwise hang on) with the call that runs the request. The client asks
 * for one byte more than it keeps, so a longer stream is known to be cut, whatever the code prints.
 */
export function boundedProgram(code: string, replay: readonly string[], forwardBytes: number): string {
  const request = Buffer.from(JSON.stringify({ code, replay }), 'utf8').toString('base64');
  return `${pythonProgram('sandboxfusion_program')}\n\nmain(${forwardBytes}, "${request}")\n`;
}
