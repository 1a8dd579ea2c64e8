import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fakeEngineLifecycle,
  MODEL_NAME,
} from '../../../../packages/rollout/test/servers/remote-policy-fakes.js';
import { runCli } from '../../src/index.js';
import { capture } from '../support/capture-io.js';

const { startEngine } = fakeEngineLifecycle();

/** The command's exit code and what it printed, or its error when it threw. */
async function evalAgainst(args: string[]): Promise<{ code: number | 'threw'; text: string }> {
  const { io, err } = capture();
  return runCli(['eval', ...args], io).then(
    (code) => ({ code, text: err.join('') }),
    (error: Error) => ({ code: 'threw', text: error.message }),
  );
}

describe('taorl eval --endpoint', () => {
  it('asks the servers as remote.* says: its timeout and attempts end a hanging server', async () => {
    const hanging = await startEngine({ api: 'openai', misbehave: 'hang' });
    const result = await evalAgainst([
      '--endpoint',
      hanging.url,
      '--served-model',
      MODEL_NAME,
      '--set',
      'remote.timeoutMs=300',
      '--set',
      'remote.maxAttempts=2',
      '--set',
      'task.testSize=1',
      '--set',
      'tool.sandbox={name: local, workers: 1, preload: []}',
      '--out',
      mkdtempSync(join(tmpdir(), 'taorl-eval-hang-')),
    ]);
    expect(result.code).not.toBe(0);
    expect(result.text).toContain('no server answered a sample in 2 attempts');
    expect(result.text).toContain('no answer within 300 ms');
    expect(hanging.requests).toHaveLength(2);
  }, 60_000);
});
