import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type EvalMetrics, readMetrics, runCli } from '../src/index.js';
import { tinyRunOverrides } from './support/tiny-run.js';

describe('taorl demo', () => {
  it('runs SFT, RL and the more-SFT baseline end to end at a tiny size and prints the table', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-demo-'));
    const out: string[] = [];
    const err: string[] = [];
    const sets = tinyRunOverrides.flatMap((assignment) => ['--set', assignment]);
    const code = await runCli(['demo', ...sets, '--set', 'demo.moreSftSteps=2', '--out', outDir], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    expect(code, err.join('')).toBe(0);
    const text = out.join('');
    expect(text).toMatch(
      /^demo: SFT 3 steps, RL 2 steps, more SFT 2 steps, 6 held-out evaluations; about \d\d:\d\d on an idle/m,
    );
    expect(text).toMatch(/^SFT: 3 steps in \d+ s, held-out Avg@2 \d+\.\d%; about \d\d:\d\d left$/m);
    expect(text).toMatch(/Held-out arith-tool problems: 4, 2 sample\(s\) each/);
    expect(text).toMatch(/^policy +Avg@2 +Pass@2 +greedy +calls +direct +tool +recov +gave-up +stop-1$/m);
    expect(text).toMatch(/^SFT \(3 steps\) +(\d+\.\d% +){3}\d\.\d\d( +\d+\.\d%){5}$/m);
    expect(text).toMatch(/^SFT \+ RL \(2 steps\) +\d+\.\d%/m);
    expect(text).toMatch(/^SFT \+ more SFT \(2 steps\) +\d+\.\d%/m);
    expect(text).toMatch(/What TAO-RL acted on during RL \(early = the first 1 steps, late = the last 1\)/);
    expect(text).toMatch(/C1 \(execution validity\): \d+\.\d% of the early rollouts/);
    // '-': nothing to measure (this tiny run's rollouts may reach no decision point and get no bonus).
    expect(text).toMatch(
      /post-tool bonus: (\d+\.\d%|-) of the bonus tokens sit at decision points .*; entropy there (\d\.\d{3}|-) -> (\d\.\d{3}|-)$/m,
    );
    expect(text).toMatch(
      /^ {2}tool calls per rollout \d\.\d\d -> \d\.\d\d; answers without a call \d+\.\d% -> \d+\.\d%/m,
    );
    const metrics = readMetrics(join(outDir, 'metrics.jsonl'));
    const evals = metrics.filter((line): line is EvalMetrics => line.phase === 'eval');
    expect(evals.map((line) => line.label)).toEqual([
      'SFT',
      'SFT (greedy)',
      'SFT + RL',
      'SFT + RL (greedy)',
      'SFT + more SFT',
      'SFT + more SFT (greedy)',
    ]);
    expect(evals.every((line) => line.problems === 4)).toBe(true);
    // Steps bound every phase: 3 SFT steps, 2 RL steps, 2 more SFT steps, whatever the machine's speed.
    expect(metrics.filter((line) => line.phase === 'sft').length).toBe(5);
    expect(metrics.filter((line) => line.phase === 'rl').length).toBe(2);
    const shares = Object.values(evals[0]!.strategies ?? {});
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 6);
    for (const file of ['report.html', 'sft-policy/model.safetensors', 'rl-policy/config.json'])
      expect(existsSync(join(outDir, file)), file).toBe(true);
  }, 300_000);
});
