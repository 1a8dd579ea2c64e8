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
    const code = await runCli(['demo', ...sets, '--out', outDir], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    expect(code, err.join('')).toBe(0);
    const text = out.join('');
    expect(text).toMatch(/Held-out arith-tool problems: 4, 2 sample\(s\) each/);
    expect(text).toMatch(/^policy +Avg@2 +Pass@2 /m);
    expect(text).toMatch(/^SFT +\d+\.\d%/m);
    expect(text).toMatch(/^SFT \+ RL \(\d+ s\) +\d+\.\d%/m);
    expect(text).toMatch(/^SFT \+ more SFT \(same \d+ s\) +\d+\.\d%/m);
    const evals = readMetrics(join(outDir, 'metrics.jsonl')).filter(
      (line): line is EvalMetrics => line.phase === 'eval',
    );
    expect(evals.map((line) => line.label)).toEqual(['SFT', 'SFT + RL', 'SFT + more SFT']);
    expect(evals.every((line) => line.problems === 4)).toBe(true);
    for (const file of ['report.html', 'sft-policy/model.safetensors', 'rl-policy/config.json'])
      expect(existsSync(join(outDir, file)), file).toBe(true);
  }, 300_000);
});
