import { readFileSync } from 'node:fs';
import { registerEntropyShaper, taoShaper } from '@taorl/advantage';
import { registerFilter, toolAwareFilter } from '@taorl/filter';
import { registerPolicyLoss, vanillaPolicyLoss } from '@taorl/grpo';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { selectVariants } from '../src/experiments/ablate/variants.js';
import { ConfigError, parseConfig } from '../src/index.js';
import { rlComponents } from '../src/session/components.js';

// A user's loss with an option: the vanilla surrogate, whose option `scale` its zod schema checks.
registerPolicyLoss('components-test-loss', () => vanillaPolicyLoss, {
  schema: z.strictObject({ scale: z.number().positive().default(1) }),
});

const componentsOf = (yaml: string) => rlComponents(parseConfig(yaml, 'run.yaml'), 'run.yaml');

// A user's filter and shaper whose options a function schema checks (it returns them or throws).
const maxCalls = (options: Readonly<Record<string, unknown>>) => {
  if (!Number.isInteger(options.max)) throw new Error(`option 'max' must be an integer, got ${options.max}`);
  return { max: options.max as number };
};
registerFilter('components-test-function-filter', () => toolAwareFilter(), { schema: maxCalls });
registerFilter('components-test-zod-filter', () => toolAwareFilter(), {
  schema: z.strictObject({ max: z.number().int() }),
});
registerEntropyShaper('components-test-function-shaper', () => taoShaper(), { schema: maxCalls });

const problemOf = (yaml: string): string => {
  try {
    componentsOf(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`no error for ${yaml}`);
};

describe('plug-ins named by the config', () => {
  it('passes a user loss its own options and keeps the fields every loss shares apart', () => {
    const { loss } = componentsOf('rl:\n  loss: { name: components-test-loss, scale: 2, clipLow: 0.1 }\n');
    expect(loss).toEqual({ name: 'components-test-loss', clipLow: 0.1, options: { scale: 2 } });
  });

  it('names the config field of an option the loss refuses', () => {
    expect(() => componentsOf('rl:\n  loss: { name: components-test-loss, scale: -1 }\n')).toThrow(
      /^run\.yaml: rl\.loss: policy loss "components-test-loss": option 'scale': /,
    );
    const error = (() => {
      try {
        componentsOf('rl:\n  loss: { name: vanilla, clipHi: 0.3 }\n');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('rl.loss');
    expect((error as Error).message).toBe(
      `run.yaml: rl.loss: policy loss "vanilla": takes no options, got 'clipHi' (did you mean 'clipHigh' for ` +
        `'clipHi'?); fields every loss takes: clipLow, clipHigh, dualClip, logRatioBound, aggregation, horizon, ` +
        'klCoef, klKind, entropyCoef',
    );
  });

  it('refuses options of a tool format and suggests the name of a misspelled one', () => {
    expect(() => componentsOf('tool:\n  format: { name: hermes, strict: true }\n')).toThrow(
      `run.yaml: tool.format: tool format "hermes": takes no options, got 'strict'`,
    );
    expect(() => componentsOf('tool:\n  format: hermess\n')).toThrow(
      'run.yaml: tool.format: unknown tool format "hermess" (did you mean "hermes"?)',
    );
  });
});

describe('a bad plug-in option names the field, its index and the plug-in, whatever checks the option', () => {
  it('a zod schema, a function schema, and a built-in that checks its own options', () => {
    const filters = (second: string) => `rl:\n  filters: [tool-aware, ${second}]\n`;
    expect(problemOf(filters('{name: components-test-zod-filter, max: x}'))).toMatch(
      /^run\.yaml: rl\.filters\[1\]: filter "components-test-zod-filter": option 'max': /,
    );
    expect(problemOf(filters('{name: components-test-function-filter, max: x}'))).toBe(
      `run.yaml: rl.filters[1]: filter "components-test-function-filter": option 'max' must be an integer, got x`,
    );
    expect(problemOf(filters('{name: answer-discriminability, minGroupsize: 2}'))).toBe(
      `run.yaml: rl.filters[1]: filter "answer-discriminability": unknown option 'minGroupsize' (known options: ` +
        'minGroupSize, histogramBins)',
    );
    expect(problemOf('rl:\n  shaper: {name: components-test-function-shaper, max: 1.5}\n')).toBe(
      `run.yaml: rl.shaper: entropy shaper "components-test-function-shaper": option 'max' must be an integer, got 1.5`,
    );
    expect(problemOf('rl:\n  estimator: {name: rloo, eps: 1}\n')).toBe(
      `run.yaml: rl.estimator: advantage estimator "rloo": unknown option 'eps' (known options: singleton)`,
    );
    expect(problemOf('tool:\n  sandbox: {name: local, wrkers: 2}\n')).toMatch(
      /^run\.yaml: tool\.sandbox: sandbox backend "local": createSandbox: unknown option "wrkers"/,
    );
    // A count past its range (100000 workers started sandboxes without end).
    expect(problemOf('tool:\n  sandbox: {name: local, workers: 100000}\n')).toBe(
      'run.yaml: tool.sandbox: sandbox backend "local": createSandbox: workers must be an integer from 1 to 256, ' +
        'got 100000',
    );
  });
});

describe('issue 34 plug-ins and learner settings named by the config', () => {
  it('selects gspo with its own defaults and refuses another aggregation, naming rl.loss', () => {
    expect(componentsOf('rl:\n  loss: gspo\n').loss).toEqual({ name: 'gspo', options: {} });
    expect(() => componentsOf('rl:\n  loss: { name: gspo, aggregation: token-mean }\n')).toThrow(
      /^run\.yaml: rl\.loss: policy loss config\.aggregation is 'token-mean', but policy loss 'gspo' is defined with 'seq-mean-token-mean'/,
    );
  });

  it('takes pi_old from the trainer in remote mode and from the rollout locally, unless set', () => {
    expect(componentsOf('seed: 1\n').learner).toEqual({ oldLogProbs: 'rollout', rolloutCorrection: null });
    expect(componentsOf('remote: {endpoints: [http://10.0.0.5:8000]}\n').learner).toEqual({
      oldLogProbs: 'trainer',
      rolloutCorrection: { weights: 'sequence', threshold: 2, batchNormalize: false, rejection: 'none' },
    });
    expect(
      componentsOf('remote: {endpoints: [http://10.0.0.5:8000]}\nrl: {correction: {enabled: false}}\n')
        .learner,
    ).toEqual({ oldLogProbs: 'trainer', rolloutCorrection: null });
    expect(
      componentsOf('remote: {endpoints: [http://10.0.0.5:8000]}\nrl: {oldLogProbs: rollout}\n').learner,
    ).toEqual({ oldLogProbs: 'rollout', rolloutCorrection: null });
    expect(componentsOf('rl: {oldLogProbs: trainer}\n').learner.oldLogProbs).toBe('trainer');
    expect(
      componentsOf('rl: {oldLogProbs: trainer, correction: {enabled: true, weights: token, threshold: 3}}\n')
        .learner,
    ).toEqual({
      oldLogProbs: 'trainer',
      rolloutCorrection: { weights: 'token', threshold: 3, batchNormalize: false, rejection: 'none' },
    });
  });

  it('refuses a correction without the trainer pi_old, a band upside down or an unknown mode, before anything runs', () => {
    expect(() => componentsOf('rl: {correction: {enabled: true}}\n')).toThrow(
      /^run\.yaml: rl\.correction\.enabled: .*set rl\.oldLogProbs: trainer/,
    );
    const correction = (fields: string) =>
      componentsOf(`rl: {oldLogProbs: trainer, correction: {enabled: true, ${fields}}}\n`);
    expect(() => correction('threshold: 2_0.5')).toThrow(
      /^run\.yaml: rl\.correction: rolloutCorrection: option 'threshold' has lower bound 2 above upper bound 0\.5/,
    );
    expect(() => correction('rejection: seq_k3, rejectionThreshold: 0.1')).toThrow(
      /^run\.yaml: rl\.correction: rolloutCorrection: option 'rejection' has unknown mode "seq_k3"/,
    );
    expect(
      correction('threshold: 0.5_2, rejection: "seq_mean_k3,token_k2", rejectionThreshold: "0.01,0.1"')
        .learner,
    ).toEqual({
      oldLogProbs: 'trainer',
      rolloutCorrection: {
        weights: 'sequence',
        threshold: '0.5_2',
        batchNormalize: false,
        rejection: 'seq_mean_k3,token_k2',
        rejectionThreshold: '0.01,0.1',
      },
    });
    // Checked while the correction is off too.
    expect(() => componentsOf('rl: {correction: {threshold: 0}}\n')).toThrow(
      /^run\.yaml: rl\.correction: rolloutCorrection: option 'threshold' must be a finite number > 0, got 0/,
    );
  });

  it('refuses resample-on-correct keeping as many as a group has, naming the option', () => {
    expect(
      componentsOf('rl: {groupSize: 16, filters: [{name: resample-on-correct, size: 8}]}\n').filter,
    ).not.toBeNull();
    expect(() =>
      componentsOf('rl: {groupSize: 8, filters: [{name: resample-on-correct, size: 8}]}\n'),
    ).toThrow(
      /^run\.yaml: rl\.filters\[0\]\.size: resample-on-correct keeps 8 of each group of 8 rollouts \(rl\.groupSize 8\)/,
    );
    expect(() =>
      componentsOf(
        'rl: {groupSize: 8, filters: [{name: resample-on-correct, size: 4}, {name: tool-aware, minGroupSize: 5}]}\n',
      ),
    ).toThrow(
      /^run\.yaml: rl\.filters\[1\]\.minGroupSize: 5 is more than the 4 members a group has when it reaches tool-aware, so every group would be dropped/,
    );
    expect(() =>
      componentsOf('rl: {groupSize: 8, filters: [{name: resample-on-correct, size: 3}]}\n'),
    ).toThrow(
      /^run\.yaml: rl\.filters\[0\]: filter "resample-on-correct": options 'minWrong' \+ 'minCorrect' \(2 \+ 2\) must not exceed 'size' \(3\)/,
    );
  });
});

describe('the ablation arms of issue 34 on configs/ablate.yaml', () => {
  const ablate = readFileSync(new URL('../configs/ablate.yaml', import.meta.url), 'utf8');
  const armed = (name: string) =>
    rlComponents(parseConfig(ablate, 'ablate.yaml', selectVariants(name)[0]!.overrides), 'ablate.yaml');

  it('gives each arm the setting it names and nothing of the base loss', () => {
    expect(armed('gspo').loss).toEqual({ name: 'gspo', options: {} });
    expect(armed('void-turn').filter?.name).toBe('void-turn');
    // c1 keeps an answer written without any call; c1-reject drops it, and both drop one whose every call failed.
    const answers = [
      { groupId: 0, correct: true, toolCalls: [] },
      { groupId: 0, correct: true, toolCalls: [{ status: 'error' }] },
      { groupId: 0, correct: true, toolCalls: [{ status: 'ok' }] },
    ];
    expect(armed('c1').filter?.apply(answers).keptIndices).toEqual([0, 2]);
    expect(armed('c1-reject').filter?.apply(answers).keptIndices).toEqual([2]);
    expect(armed('roc').filter?.name).toBe('resample-on-correct');
    expect(parseConfig(ablate, 'ablate.yaml', selectVariants('roc')[0]!.overrides).rl.groupSize).toBe(16);
    expect(armed('correction').learner).toEqual({
      oldLogProbs: 'trainer',
      rolloutCorrection: { weights: 'token', threshold: 2, batchNormalize: false, rejection: 'none' },
    });
  });
});
