import { generateChainProblems } from '@taorl/data';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../src/index.js';
import { chainProblems } from '../src/session/problem-source.js';
import { presetPath } from '../src/util/shipped.js';

describe('configs/preconditions.yaml (docs/experiments/preconditions.md)', () => {
  const preconditions = loadConfig(presetPath('preconditions'), [], () => undefined);
  const ablate = loadConfig(presetPath('ablate'), [], () => undefined);

  it("runs the chain-tool task with the ablation's settings but for the changes its header states", () => {
    expect(preconditions.task).toEqual({
      ...ablate.task,
      name: 'chain-tool',
      // Read by arith-tool only.
      mix: 'classic',
      chain: { luckyShare: 0.15, loopShare: 1, minSteps: 3, maxSteps: 4, maxCalls: 6 },
    });
    expect(preconditions.rl.maxGenBatches).toBe(1);
    expect({
      ...preconditions.rl,
      steps: ablate.rl.steps,
      microBatchRows: ablate.rl.microBatchRows,
    }).toEqual(ablate.rl);
    expect(preconditions.rl.steps).toBe(60);
    expect({ ...preconditions.sft, steps: ablate.sft.steps }).toEqual(ablate.sft);
    expect(preconditions.model).toEqual(ablate.model);
    expect({ ...preconditions.tool, observationChars: ablate.tool.observationChars }).toEqual(ablate.tool);
    expect({ ...preconditions.rollout, maxTurns: ablate.rollout.maxTurns, maxResponseTokens: 256 }).toEqual(
      ablate.rollout,
    );
    expect(preconditions.eval).toEqual(ablate.eval);
  });

  it('draws the problems of task.chain, and the dose-response sets the lucky-answer knob with --set', () => {
    const session = { config: preconditions, source: 'preconditions.yaml' };
    expect(chainProblems(session, 'test', 50, 7)).toEqual(
      generateChainProblems({ seed: 7, split: 'test', count: 50, ...preconditions.task.chain }),
    );
    for (const lucky of [0, 0.3]) {
      const config = loadConfig(
        presetPath('preconditions'),
        [`task.chain.luckyShare=${lucky}`],
        () => undefined,
      );
      const problems = chainProblems({ config, source: 'preconditions.yaml' }, 'train', 1000, 1);
      expect(problems.filter((p) => p.lucky).length / 1000).toBeCloseTo(lucky, 1);
    }
  });

  it('names task.chain in the error when its steps cannot be drawn, and range-checks the shares', () => {
    const config = parseConfig('task: {name: chain-tool, chain: {minSteps: 5, maxSteps: 3}}\n', 'x.yaml');
    const error = (() => {
      try {
        chainProblems({ config, source: 'x.yaml' }, 'train', 1, 1);
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'x.yaml: task.chain: generateChainProblems: minSteps and maxSteps must be integers with 2 <= minSteps <= ' +
        'maxSteps, got 5 and 3',
    );
    expect(() => parseConfig('task: {chain: {luckyShare: 1.2}}\n', 'x.yaml')).toThrow(
      'x.yaml: task.chain.luckyShare: must be <= 1, got 1.2',
    );
  });
});
