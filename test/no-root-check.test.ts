import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 49: scripts/no-root-check.sh (run by .ci/run) runs a short demo as uid 65534 without bubblewrap and
// python3, then scripts/no-root-verify.mjs checks what it left. Here the verifier meets a run as it should be and
// runs whose fallback broke: each broken one must fail the check, naming what is wrong.

const root = fileURLToPath(new URL('..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'taorl-no-root-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const NOTICE =
  'taorl: the local sandbox cannot run here (createSandbox (local): pythonPath must be an executable file, got ' +
  '"/usr/bin/python3"); tool calls run in the pyodide backend (Python in WebAssembly, a weaker boundary than ' +
  'bubblewrap)';
const step = (step: number, fields: Record<string, number>) =>
  JSON.stringify({
    phase: 'rl',
    step,
    toolCallsPerTrajectory: 1.5,
    toolSuccessRate: 0.8,
    toolInfraFailureRate: 0,
    ...fields,
  });
const SFT_LINE = JSON.stringify({ phase: 'sft', step: 1, loss: 2.5 });

function verify(stderr: string, metrics: string[]) {
  const stderrPath = join(folder, 'stderr.log');
  const metricsPath = join(folder, 'metrics.jsonl');
  writeFileSync(stderrPath, stderr);
  writeFileSync(metricsPath, metrics.map((line) => `${line}\n`).join(''));
  return spawnSync(process.execPath, [join(root, 'scripts/no-root-verify.mjs'), stderrPath, metricsPath], {
    encoding: 'utf8',
  });
}

describe('the no-root check (scripts/no-root-verify.mjs)', () => {
  it('passes a run that gave way to pyodide once and whose RL steps ran their tool calls', () => {
    const result = verify(`demo: SFT 30 steps\n${NOTICE}\n`, [SFT_LINE, step(31, {}), step(32, {})]);
    expect(result.status, result.stderr).toBe(0);
  });

  it('fails a run without the notice (no fallback happened, or it said nothing)', () => {
    const result = verify('demo: SFT 30 steps\n', [SFT_LINE, step(31, {})]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('[no-root] FAIL stderr has 0 lines starting "taorl: the local sandbox');
  });

  it('fails a run whose tool calls failed in the sandbox itself, or never succeeded', () => {
    const broken = verify(`${NOTICE}\n`, [step(31, { toolInfraFailureRate: 1, toolSuccessRate: 1 })]);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain(
      '[no-root] FAIL RL step 31: 1 of its tool calls failed in the sandbox itself',
    );
    const failing = verify(`${NOTICE}\n`, [
      step(31, { toolSuccessRate: 0 }),
      step(32, { toolSuccessRate: 0 }),
    ]);
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('[no-root] FAIL no RL step had a tool call that succeeded');
  });

  it('fails a run that stopped before RL or made no tool call', () => {
    const noRl = verify(`${NOTICE}\n`, [SFT_LINE]);
    expect(noRl.status).toBe(1);
    expect(noRl.stderr).toContain('[no-root] FAIL metrics.jsonl has no RL step');
    const noCalls = verify(`${NOTICE}\n`, [step(31, { toolCallsPerTrajectory: 0 })]);
    expect(noCalls.stderr).toContain('[no-root] FAIL RL step 31 made no tool call');
  });
});
