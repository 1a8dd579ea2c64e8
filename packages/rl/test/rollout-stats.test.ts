import { ByteTokenizer, generateChainProblems, generateChainTraces } from '@taorl/data';
import { createSandbox, markdownFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import { decisionPointStats } from '../src/decision-points.js';
import { rolloutStats } from '../src/rollout-stats.js';

describe('rolloutStats on chain-tool demonstrations (real sandbox)', () => {
  it('counts wasted calls and right answers without a successful call, strategy by strategy', async () => {
    const sandbox = await createSandbox({ workers: 2 });
    try {
      const problems = generateChainProblems({ seed: 21, split: 'train', count: 60, luckyShare: 0.3 });
      const traces = await generateChainTraces(problems, {
        sandbox,
        format: markdownFormat,
        tokenizer: new ByteTokenizer(),
        seed: 22,
        maxObservationChars: 128,
      });
      const of = (strategy: string) => traces.filter((t) => t.strategy === strategy);
      for (const strategy of ['tool', 'wrong-branch', 'direct']) {
        if (of(strategy).length > 0)
          expect(rolloutStats(of(strategy)).wastedCallsPerTrajectory, strategy).toBe(0);
      }
      // One failed call each (recovered, gave-up), one repeated call each (redundant).
      for (const strategy of ['recovered', 'gave-up', 'redundant']) {
        expect(of(strategy).length, strategy).toBeGreaterThan(0);
        expect(rolloutStats(of(strategy)).wastedCallsPerTrajectory, strategy).toBe(1);
      }
      // Direct and gave-up demonstrations answer the gold without a successful call; the others call successfully.
      expect(rolloutStats([...of('direct'), ...of('gave-up')]).unexecutedCorrect).toBe(1);
      expect(rolloutStats([...of('tool'), ...of('recovered'), ...of('redundant')]).unexecutedCorrect).toBe(0);
      // A decision point after every successful call (none follows the last token of a response).
      const okCalls = traces.flatMap((t) => t.toolCalls).filter((call) => call.status === 'ok').length;
      expect(decisionPointStats(traces, null).count).toBe(okCalls);
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});
