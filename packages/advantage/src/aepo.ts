import { checkOptionNames, choiceOption, numberOption } from './options';
import { checkWindow, postToolRanges } from './post-tool';
import { shaperRegistry } from './shaper-registry';
import { checkAligned, type EntropyShaper, nonFiniteEntropy, shapingTarget } from './shaping';
import type { PostToolWindow } from './types';

export interface AepoShaperOptions {
  /** c in A' = A (1 + c z) (default 0.2; the public TAO-RL code uses 0.01). */
  readonly coefficient?: number;
  /** Tokens reshaped: `post-tool` (M_post, default, as the public TAO-RL code) or `all` policy tokens. */
  readonly scope?: 'post-tool' | 'all';
  readonly window?: PostToolWindow;
}

/** Added to the std, as the public TAO-RL code, so a batch of equal entropies gives z = 0. */
const STD_EPSILON = 1e-8;

/**
 * AEPO-style multiplicative shaping: A'_t = A_t (1 + c z_t) with z_t = (H_t - mean H) / (std H + 1e-8), mean and
 * population std over every policy token of the batch (WhyNot22222/TAO-RL@7436ad1:verl/workers/actor/dp_actor.py).
 * Unlike the additive bonus it can shrink an advantage, and flips its sign where c z_t < -1.
 */
export function aepoShaper(options: AepoShaperOptions = {}): EntropyShaper {
  const name = 'aepo';
  checkOptionNames(name, options, ['coefficient', 'scope', 'window']);
  const coefficient = numberOption(name, 'coefficient', options.coefficient, 0.2);
  const scope = choiceOption(name, 'scope', options.scope, 'post-tool', ['post-tool', 'all']);
  const window = checkWindow(name, options.window ?? 'segment');
  return {
    name,
    shape(batch, advantages, shapeOptions) {
      checkAligned(name, batch, advantages);
      let count = 0;
      let sum = 0;
      let squares = 0;
      for (let i = 0; i < batch.length; i++) {
        const { lossMask, entropies } = batch[i]!;
        for (let p = 0; p < lossMask.length; p++) {
          if (lossMask[p] === 0) continue;
          const h = entropies[p]!;
          if (!Number.isFinite(h)) throw nonFiniteEntropy(i, p, h);
          count++;
          sum += h;
          squares += h * h;
        }
      }
      const mean = count > 0 ? sum / count : 0;
      const std = count > 1 ? Math.sqrt(Math.max(squares / count - mean * mean, 0)) : 1;
      const gain = coefficient / (std + STD_EPSILON);
      const shaped = shapingTarget(advantages, shapeOptions);
      let candidates = 0;
      let bonusSum = 0;
      let bonusMax = -Infinity;
      for (let i = 0; i < batch.length; i++) {
        const t = batch[i]!;
        const { lossMask, entropies } = t;
        const ranges = scope === 'all' ? Int32Array.of(0, lossMask.length) : postToolRanges(t, i, window);
        const row = shaped.perTrajectory[i]!;
        for (let k = 0; k < ranges.length; k += 2) {
          const end = ranges[k + 1]!;
          for (let p = ranges[k]!; p < end; p++) {
            if (lossMask[p] === 0) continue;
            const a = row[p]!;
            const bonus = a * gain * (entropies[p]! - mean);
            row[p] = a + bonus;
            candidates++;
            bonusSum += bonus;
            if (bonus > bonusMax) bonusMax = bonus;
          }
        }
      }
      return {
        advantages: shaped,
        diagnostics: {
          shaper: name,
          candidateTokens: candidates,
          selectedTokens: candidates,
          entropyThreshold: null,
          entropyScale: std,
          meanBonus: candidates > 0 ? bonusSum / candidates : 0,
          // + 0: a zero advantage times a negative z is -0.
          maxBonus: candidates > 0 ? bonusMax + 0 : 0,
        },
      };
    },
  };
}

shaperRegistry.registerBuiltIn('aepo', aepoShaper);
