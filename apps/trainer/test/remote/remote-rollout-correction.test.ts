import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { loadPolicy, parseConfig, type RlStepMetrics, rlContext, rlStep } from '../../src/index.js';
import { problemSource } from '../../src/session/problem-source.js';
import { openSession } from '../../src/session/session.js';
import { remoteConfigText } from './remote-training-support.js';
import { post } from './serve-fixture.js';
import { type ServeProcess, serveTinyPolicyForFile } from './serve-process.js';

// The trainer and the server start from the same saved tiny policy; a perturbed copy makes the engine mismatch.
const { root, modelDir, servers } = serveTinyPolicyForFile({
  tempPrefix: 'taorl-remote-correction-',
  servers: 1,
  seed: 5,
});

/** Saves the policy of `modelDir` with every weight moved by N(0, 0.05): the deliberately mismatched engine. */
async function perturbedCopy(): Promise<string> {
  const dir = join(root, 'perturbed');
  const policy = await loadPolicy(modelDir);
  policy.trainableVariables().forEach((v, i) => {
    v.assign(tf.tidy(() => tf.add(v, tf.randomNormal(v.shape, 0, 0.05, 'float32', 100 + i))));
  });
  await policy.save(dir);
  policy.dispose();
  return dir;
}

/**
 * One remote RL step with pi_old from the trainer and the given rl.correction; with `engine` the server samples from
 * that folder's weights instead of the trainer's (pushed at the start, then replaced; no push during the step).
 */
async function oneStep(name: string, correction: string, engine?: string): Promise<RlStepMetrics> {
  const [server] = servers as [ServeProcess];
  const text = remoteConfigText({
    outDir: join(root, name),
    modelDir,
    steps: 1,
    remote: [`endpoints: [${server.url}]`, 'reloadEvery: 100'],
  }).replace('  checkpointEvery: 0', `  checkpointEvery: 0\n  groupSize: 4\n  correction: ${correction}`);
  const config = parseConfig(text.replace('  groupSize: 2\n', ''), `${name}.yaml`);
  const session = await openSession(config, `${name}.yaml`);
  const { context, updater } = rlContext(session, await problemSource(session), () => undefined);
  try {
    await context.sync.start(0);
    if (engine !== undefined) {
      const reply = await post<{ success: boolean }>(server.url, '/update_weights_from_disk', {
        model_path: engine,
      });
      expect(reply.body.success).toBe(true);
    }
    return await rlStep(context, 1);
  } finally {
    updater.dispose();
    await context.sync.close();
    await session.close();
  }
}

describe('remote mode: pi_old from the trainer, the engine mismatch measured and corrected', () => {
  it('shows no mismatch and weights of 1 when the server holds the trained weights', async () => {
    const line = await oneStep('same', '{enabled: true, weights: token}');
    const c = line.correction!;
    expect(c.k3Kl).toBeLessThan(1e-6);
    expect(Math.abs(c.weightMean - 1)).toBeLessThan(1e-4);
    expect(Math.abs(c.ratioMax - 1)).toBeLessThan(1e-3);
    expect([c.truncatedShare, c.maskedShare]).toEqual([0, 0]);
  }, 300_000);

  it('measures a perturbed engine and weighs and rejects by the ratio', async () => {
    const engine = await perturbedCopy();
    // Metrics only: the mismatch is measured, nothing weighted (weights `none` report a mean weight of 1).
    const measured = (await oneStep('measured', '{enabled: false}', engine)).correction!;
    expect(measured.k3Kl).toBeGreaterThan(1e-3);
    expect(measured.weightMean).toBe(1);
    const corrected = (
      await oneStep(
        'corrected',
        '{enabled: true, weights: token, threshold: 1.5, rejection: seq_sum_k1, rejectionThreshold: 4}',
        engine,
      )
    ).correction!;
    expect(corrected.k3Kl).toBeGreaterThan(1e-3);
    expect(corrected.ratioMax).toBeGreaterThan(1.5);
    expect(corrected.truncatedShare).toBeGreaterThan(0);
    expect(Math.abs(corrected.weightMean - 1)).toBeGreaterThan(1e-3);
    expect(corrected.maskedSequenceShare).toBeGreaterThan(0);
  }, 600_000);
});
