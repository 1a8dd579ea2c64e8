import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/archive-run-records.sh keeps an experiment's finished runs in the repository (issue 48's runs were lost
// with the machine that held them): the records travel, the weights do not, and a finished policy leaves its hash.

const root = fileURLToPath(new URL('..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'taorl-archive-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
// Run from the folder that holds runs/, as an experiment's checkout is.
const archive = (source: string, destination: string) =>
  spawnSync('bash', [join(root, 'scripts/archive-run-records.sh'), source, destination], {
    encoding: 'utf8',
    cwd: folder,
  });

describe('archive-run-records.sh', () => {
  const runs = join(folder, 'runs');
  const out = join(folder, 'archive');
  write(join(runs, 'sft/done.json'), '{"seconds":1}\n');
  write(join(runs, 'sft/metrics.jsonl'), '{"phase":"sft","step":1}\n');
  write(join(runs, 'sft/policy/model.json'), '{"weights":"w.bin"}\n');
  write(join(runs, 'sft/policy/w.bin'), 'weights');
  write(join(runs, 'sft/checkpoints/step-600/state.json'), '{}\n');
  write(join(runs, 'sft/log.txt'), 'progress\n');
  write(join(runs, 'sft/.taorl.lock'), '{}\n');
  write(join(runs, 'runs/grpo/seed-1/metrics.jsonl'), '{"phase":"rl","step":1}\n');
  write(join(runs, 'runs/grpo/seed-1/policy/w.bin'), 'unfinished');
  write(join(runs, 'start/seed-1/held-out.json'), '{"accuracy":0.1}\n');
  write(
    join(runs, 'start/seed-1/done.json'),
    `${JSON.stringify({ args: ['--out', join(runs, 'start/seed-1')] })}\n`,
  );
  write(join(runs, 'ablation.json'), '{"rows":[]}\n');
  // A start copied from another checkout's runs (as the c1-reject follow-up copies the main ablation's)
  write(
    join(runs, 'start/seed-2/done.json'),
    '{"args":["model.path=\\"/elsewhere/main/runs/main/sft/policy\\""]}\n',
  );

  it("copies finished runs' metrics, configs and evaluations and leaves weights, checkpoints, logs and locks", () => {
    const result = archive('runs', out);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const kept of ['sft/done.json', 'sft/metrics.jsonl', 'ablation.json', 'start/seed-1/held-out.json'])
      expect(readFileSync(join(out, kept), 'utf8')).toBe(readFileSync(join(runs, kept), 'utf8'));
    for (const left of [
      'sft/policy',
      'sft/checkpoints',
      'sft/log.txt',
      'runs/grpo/seed-1/metrics.jsonl',
      'sft/.taorl.lock',
      'runs/grpo/seed-1/policy',
    ])
      expect(existsSync(join(out, left)), left).toBe(false);
  });

  it("writes absolute paths through runs/ from there on, its own and another checkout's", () => {
    expect(readFileSync(join(out, 'start/seed-1/done.json'), 'utf8')).toBe(
      `${JSON.stringify({ args: ['--out', 'runs/start/seed-1'] })}\n`,
    );
    expect(readFileSync(join(out, 'start/seed-2/done.json'), 'utf8')).toBe(
      '{"args":["model.path=\\"runs/main/sft/policy\\""]}\n',
    );
  });

  it("records a finished run's policy by the sha256 of each file, and not an unfinished run's", () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(readFileSync(join(out, 'sft/policy.sha256'), 'utf8')).toBe(
      `${sha('{"weights":"w.bin"}\n')}  ./model.json\n${sha('weights')}  ./w.bin\n`,
    );
    expect(existsSync(join(out, 'runs/grpo/seed-1/policy.sha256'))).toBe(false);
  });

  it('refuses a runs folder that does not exist, naming it', () => {
    const result = archive(join(folder, 'missing'), out);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(join(folder, 'missing'));
  });

  it("the repository keeps an archived folder's runs/, which it ignores elsewhere", () => {
    const ignored = (path: string) =>
      spawnSync('git', ['check-ignore', '-q', path], { cwd: root }).status === 0;
    expect(ignored('runs/preconditions/runs/grpo/seed-1/metrics.jsonl')).toBe(true);
    expect(ignored('docs/results/preconditions-runs/preconditions/runs/grpo/seed-1/metrics.jsonl')).toBe(
      false,
    );
  });
});
