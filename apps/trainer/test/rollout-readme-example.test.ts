import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeExample } from '../../../scripts/packaging/tarball-rules.mjs';
import { basePolicyPath } from '../src/util/shipped.js';
import { type ServeProcess, startServeProcess } from './remote/serve-process.js';

// @taorl/rollout's README example, as it stands, against `taorl serve` on the shipped base model and the real
// sandbox: multi-turn tool rollouts over the vLLM-compatible /v1/completions. The packaging check runs the same
// example against the packed tarballs (scripts/check-packages.mjs).

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(root, 'packages/rollout/README.md'), 'utf8');
let server: ServeProcess;
let project: string;

beforeAll(async () => {
  server = await startServeProcess(['--model', basePolicyPath()]);
  // A folder outside the workspace whose node_modules holds the workspace packages, as an installed project's would.
  project = mkdtempSync(join(tmpdir(), 'taorl-rollout-readme-'));
  mkdirSync(join(project, 'node_modules', '@taorl'), { recursive: true });
  for (const name of ['data', 'eval', 'rollout', 'sandbox']) {
    symlinkSync(join(root, 'packages', name), join(project, 'node_modules', '@taorl', name));
  }
});
afterAll(async () => {
  await server?.stop();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe('@taorl/rollout README example', () => {
  it('rolls out with tool calls against taorl serve and prints what the README says', () => {
    const example = readmeExample(readme);
    expect(example).not.toBeNull();
    const file = join(project, 'example.mjs');
    writeFileSync(file, example!);
    // The packages' TypeScript sources, through tsx (resolved from the repository root, the working directory).
    const run = spawnSync(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, TAORL_SERVER: server.url },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The README's last comment is the output line, before its parenthetical gloss.
    const promised = /^\/\/ (.*?) {2}\(/m.exec(example!.split('\n').at(-2)!)?.[1];
    expect(promised).toBeDefined();
    expect(run.stdout.trim()).toBe(promised);
    expect(promised).toMatch(/^eos \[ .*'ok'.* \] \d+ \d+$/);
  });
});
