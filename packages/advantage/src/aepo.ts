import { checkOptionNames, choiceOption, numberOption } from './options';
import { checkWindow, postToolRanges } from './post-tool';
import { checkAligned, type EntropyShaper, nonFiniteEntropy } from './shaping';
import { copyTokenAdvantages } from './token-advantages';
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
    shape(batch, advantages) {
      checkAligned(name, batch, advantages);
      let count = 0;
      let sum = 0;
      let squares = 0;
      batch.forEach(({ lossMask, entropies }, i) => {
        for (let p = 0; p < lossMask.length; p++) {
          if (lossMask[p] === 0) continue;
          const h = entropies[p]!;
          if (!Number.isFinite(h)) throw nonFiniteEntropy(i, p, h);
          count++;
          sum += h;
          squares += h * h;
        }
      });
      const mean = count > 0 ? sum / count : 0;
      const std = count > 1 ? Math.sqrt(Math.max(squares / count - mean * mean, 0)) : 1;
      const shaped = copyTokenAdvantages(advantages);
      let candidates = 0;
      let bonusSum = 0;
      let bonusMax = count > 0 ? -Infinity : 0;
      batch.forEach((t, i) => {
        const ranges = scope === 'all' ? Int32Array.of(0, t.lossMask.length) : postToolRanges(t, i, window);
        const row = shaped.perTrajectory[i]!;
        for (let k = 0; k < ranges.length; k += 2) {
          for (let p = ranges[k]!; p < ranges[k + 1]!; p++) {
            if (t.lossMask[p] === 0) continue;
            const a = row[p]!;
            const next = a * (1 + (coefficient * (t.entropies[p]! - mean)) / (std + STD_EPSILON));
            row[p] = next;
            candidates++;
            bonusSum += next - a;
            if (next - a > bonusMax) bonusMax = next - a;
          }
        }
      });
      return {
        advantages: shaped,
        diagnostics: {
          shaper: name,
          candidateTokens: candidates,
          selectedTokens: candidates,
          entropyThreshold: null,
          entropyScale: std,
          meanBonus: candidates > 0 ? bonusSum / candidates : 0,
          maxBonus: candidates > 0 ? bonusMax : 0,
        },
      };
    },
  };
}
