import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTinyPolicy, runCli } from '../../src/index.js';
import { capture } from '../support/capture-io.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-remote-token-shift-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Nothing listens here: the refusal must come before any request.
const common = [
  '--set',
  'remote.endpoints=[http://127.0.0.1:9]',
  '--set',
  'rl.steps=1',
  '--set',
  'tool.sandbox={name: local, workers: 1, preload: []}',
  '--eval',
];

describe('RL remote mode and token shift', () => {
  it('refuses a token-shift policy, embedded or loaded, before anything runs', async () => {
    const saved = join(root, 'token-shift-policy');
    const policy = createTinyPolicy({ vocabSize: 259, tokenShift: true, seed: 2 });
    await policy.save(saved);
    policy.dispose();
    for (const [label, set] of [
      ['embedded', 'model.tokenShift=true'],
      ['loaded', `model.path=${JSON.stringify(saved)}`],
    ] as const) {
      const out = join(root, label);
      const { io, err } = capture();
      expect(await runCli(['rl', ...common, '--set', set, '--out', out], io), err.join('')).toBe(2);
      expect(err.join('')).toMatch(
        /^taorl rl: config error: .*remote\.endpoints: the policy uses token shift .* vLLM and SGLang do not implement/,
      );
      expect(existsSync(join(out, 'metrics.jsonl'))).toBe(false);
    }
  }, 60_000);
});
