import { initBackend } from '@taorl/grpo';
import { describe, expect, it } from 'vitest';
import { backendCandidates } from '../src/session/session.js';

describe('the config backend tensorflow', () => {
  it('tries tfjs-node-gpu, then tfjs-node, and names both when neither is installed', async () => {
    // Neither native package is a dependency of this workspace, so both are skipped with their reasons.
    await expect(initBackend({ prefer: backendCandidates.tensorflow })).rejects.toThrow(
      /tried node-gpu, node\)\. node-gpu: .*@tensorflow\/tfjs-node-gpu.*; node: .*@tensorflow\/tfjs-node\b/,
    );
  });
});
