// Checks what scripts/no-root-check.sh's run left (issue 49): the trainer said once, on stderr, that it gave way
// to the pyodide backend, and its RL steps made tool calls that ran (none failed in the sandbox itself, some
// succeeded). Prints what it found; exits 1 naming each check that failed.
//   node scripts/no-root-verify.mjs <the run's stderr file> <the run's metrics.jsonl>
import { readFileSync } from 'node:fs';

const NOTICE = 'taorl: the local sandbox cannot run here';

/** The failed checks of a run's stderr text and metrics.jsonl text (empty when the run is as it should be). */
export function noRootProblems(stderr, metrics) {
  const problems = [];
  const notices = stderr.split('\n').filter((line) => line.startsWith(NOTICE));
  if (notices.length !== 1 || !notices[0].includes('tool calls run in the pyodide backend')) {
    problems.push(
      `stderr has ${notices.length} lines starting "${NOTICE}" that say the tool calls run in the pyodide backend; expected 1`,
    );
  }
  const steps = metrics
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .filter((line) => line.phase === 'rl');
  if (steps.length === 0) problems.push('metrics.jsonl has no RL step');
  for (const step of steps) {
    if (!(step.toolCallsPerTrajectory > 0)) problems.push(`RL step ${step.step} made no tool call`);
    if (step.toolInfraFailureRate !== 0) {
      problems.push(
        `RL step ${step.step}: ${step.toolInfraFailureRate} of its tool calls failed in the sandbox itself`,
      );
    }
  }
  if (steps.length > 0 && !steps.some((step) => step.toolSuccessRate > 0)) {
    problems.push('no RL step had a tool call that succeeded');
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [stderrPath, metricsPath] = process.argv.slice(2);
  if (stderrPath === undefined || metricsPath === undefined) {
    console.error('usage: node scripts/no-root-verify.mjs <stderr file> <metrics.jsonl>');
    process.exit(2);
  }
  const problems = noRootProblems(readFileSync(stderrPath, 'utf8'), readFileSync(metricsPath, 'utf8'));
  for (const problem of problems) console.error(`[no-root] FAIL ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.error(
    '[no-root] the notice is there once; every RL step made tool calls, none failed in the sandbox',
  );
}
