import type { ExecResult } from '../types';

/**
 * Keeps the first and last characters of `text` within `maxChars`, with a marker saying how much was cut. A budget
 * too small for the marker (about 35 characters) keeps the head alone.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (cut: number) => `\n...[${cut} characters truncated]...\n`;
  const room = maxChars - marker(text.length).length;
  if (room <= 0) return text.slice(0, Math.max(0, maxChars));
  const head = Math.ceil(room / 2);
  const tail = room - head;
  return text.slice(0, head) + marker(text.length - room) + (tail > 0 ? text.slice(-tail) : '');
}

/**
 * Keeps the end of `text` (a traceback's last lines say what went wrong) within `maxChars`, with a marker. A budget
 * too small for the marker keeps the tail alone.
 */
export function keepEnd(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (cut: number) => `...[${cut} characters truncated]...\n`;
  const room = maxChars - marker(text.length).length;
  if (room <= 0) return maxChars > 0 ? text.slice(-maxChars) : '';
  return marker(text.length - room) + text.slice(text.length - room);
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** What the model is told beyond its own output, per status. */
function statusNote(result: ExecResult): string {
  switch (result.status) {
    case 'timeout':
      return 'TimeoutError: the execution exceeded its time limit and was stopped.';
    case 'memory':
      return 'MemoryError: the execution exceeded its memory limit.';
    case 'output_limit':
      return 'The output exceeded its size limit; the execution was stopped.';
    case 'killed':
      return `The process was killed by ${result.signal ?? 'a signal'}.`;
    case 'sandbox_error':
      return 'The sandbox failed to run this code (not an error in the code); try again.';
    default:
      return '';
  }
}

/**
 * The observation body for a result within `maxChars`: stdout with head and tail kept; when the run failed, the
 * end of stderr (the traceback's last lines) and a note on the status. The error part gets at least half the
 * budget and is cut from its start, so what survives is the end of the traceback: the exception line.
 */
export function observationText(result: ExecResult, maxChars: number): string {
  const failed = result.status !== 'ok';
  const note = statusNote(result);
  const stderr = result.stderr.trimEnd();
  if (!failed) {
    const text = stderr ? `${withNewline(result.stdout)}${stderr}\n` : result.stdout;
    return truncateMiddle(text, maxChars);
  }
  if (result.status === 'sandbox_error') return truncateMiddle(note, maxChars);
  const errorText = [stderr, note].filter((part) => part !== '').join('\n');
  const stdout = result.stdout;
  // One character of the budget is the newline between stdout and the error part.
  const errorBudget =
    stdout === '' ? maxChars : Math.max(Math.floor(maxChars / 2), maxChars - stdout.length - 1);
  const errorPart = keepEnd(errorText, errorBudget);
  const stdoutBudget = maxChars - errorPart.length - 1;
  const stdoutPart = stdoutBudget > 0 ? truncateMiddle(stdout, stdoutBudget) : '';
  return stdoutPart === '' ? errorPart : `${withNewline(stdoutPart)}${errorPart}`;
}

/** The observation body without its final line break: a format's `content`, and what its wrapper encloses. */
export function observationContent(result: ExecResult, maxChars: number): string {
  return observationText(result, maxChars).replace(/\n$/, '');
}
