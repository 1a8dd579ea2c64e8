import { grade } from '@taorl/eval';
import { createSandbox, type ExecResult } from '@taorl/sandbox/browser';
import { startModelPanel } from './model-panel';
import { fetchDemoTask } from './rl/fetch-task';
import { startRlPanel } from './rl-panel';

// The RL playground's page (issue 50): the demo's SFT policy sampling in a web worker, Python in another, graded
// in the page, nothing from a CDN.

const PROBLEM = {
  question: 'What is the sum of the squares of the integers from 1 to 10?',
  answer: '385',
  code: 'total = sum(k * k for k in range(1, 11))\nprint(f"\\\\boxed{{{total}}}")',
};

const element = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const [question, code, run, state, output, verdict] = [
  element('question'),
  element<HTMLTextAreaElement>('code'),
  element<HTMLButtonElement>('run'),
  element('state'),
  element('output'),
  element('verdict'),
];
question.textContent = `${PROBLEM.question} (reference: ${PROBLEM.answer})`;
code.value = PROBLEM.code;

/** The answer of a run: its last printed line, boxed if the code did not box it (extractAnswer finds either). */
function answerText(result: ExecResult): string {
  const last = result.stdout.trimEnd().split('\n').at(-1) ?? '';
  return last.includes('\\boxed') ? last : `\\boxed{${last}}`;
}

async function main(): Promise<void> {
  const sandbox = await createSandbox({
    backend: 'pyodide',
    indexURL: new URL('pyodide/', document.baseURI).href,
    workers: 1,
    limits: { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 },
  });
  state.textContent = 'ready';
  run.disabled = false;
  run.addEventListener('click', async () => {
    run.disabled = true;
    state.textContent = 'running…';
    const result = await sandbox.run({ code: code.value });
    output.textContent = result.stdout + result.stderr;
    const graded = grade(answerText(result), PROBLEM.answer);
    const correct = result.status === 'ok' && graded.correct;
    verdict.className = correct ? 'correct' : 'incorrect';
    verdict.textContent =
      result.status === 'ok'
        ? `${correct ? 'correct' : 'incorrect'}: the answer read is ${JSON.stringify(graded.extracted)}`
        : `incorrect: the run ended with status ${result.status}`;
    state.textContent = 'ready';
    run.disabled = false;
  });
}

// task.json, fetched once: the model panel's sampling settings and the RL controls' defaults (an error is shown by
// each panel).
const task = fetchDemoTask(new URL('policy/', document.baseURI).href).catch((error: Error) => error);
void startModelPanel(element, task).then((model) => {
  if (model !== null) return startRlPanel(element, model, task);
});
main().catch((error: unknown) => {
  state.textContent = `Python did not start: ${(error as Error).message}`;
});
