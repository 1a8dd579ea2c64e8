import { checkOptionNames, choiceOption, numberOption } from './options';
import { checkWindow, postToolRanges } from './post-tool';
import { selectTop } from './quantile';
import { shaperRegistry } from './shaper-registry';
import { checkAligned, type EntropyShaper, nonFiniteEntropy, shapingTarget } from './shaping';
import type { PostToolWindow, ShapingTrajectory } from './types';

/** How the entropy is scaled before alpha: by its mean over S (DECISION, tao), by log|V|, or not at all. */
export type EntropyNormalisation = 'selected-mean' | 'vocab' | 'none';

export interface EntropyBonusOptions {
  /** Weight of the normalised entropy in psi (tao 0.2, DECISION; cheng 0.4 on raw entropy). */
  readonly alpha?: number;
  /** psi never exceeds |A| / kappa; kappa >= 1 so a bonus never flips the sign of A (default 2). */
  readonly kappa?: number;
  /** q_H: the fraction of candidate tokens with the highest entropy that form S (tao 0.2, cheng 1). */
  readonly topFraction?: number;
  readonly normalisation?: EntropyNormalisation;
  /** |V|, required by normalisation `vocab`. */
  readonly vocabSize?: number;
}

export interface TaoShaperOptions extends EntropyBonusOptions {
  /** M_post: the rest of the segment after a successful call (default) or its first k policy tokens. */
  readonly window?: PostToolWindow;
}

type Scope = { readonly kind: 'post-tool'; readonly window: PostToolWindow } | { readonly kind: 'all' };

function candidateRanges(t: ShapingTrajectory, index: number, scope: Scope): Int32Array {
  return scope.kind === 'all' ? Int32Array.of(0, t.lossMask.length) : postToolRanges(t, index, scope.window);
}

/** The entropies of the policy tokens inside the ranges, in batch order; NaN or infinite is an error. */
function gatherEntropies(batch: readonly ShapingTrajectory[], ranges: readonly Int32Array[]): Float32Array {
  let span = 0;
  for (const r of ranges) for (let k = 0; k < r.length; k += 2) span += r[k + 1]! - r[k]!;
  const buffer = new Float32Array(span);
  let count = 0;
  for (let i = 0; i < batch.length; i++) {
    const { lossMask, entropies } = batch[i]!;
    const r = ranges[i]!;
    for (let k = 0; k < r.length; k += 2) {
      const end = r[k + 1]!;
      for (let p = r[k]!; p < end; p++) {
        if (lossMask[p] === 0) continue;
        const h = entropies[p]!;
        if (!Number.isFinite(h)) throw nonFiniteEntropy(i, p, h);
        buffer[count++] = h;
      }
    }
  }
  return buffer.subarray(0, count);
}

/** A'_t = A_t + min(weight H_t, |A_t| / kappa) on the policy tokens of the ranges with H_t >= threshold. */
function addBonus(
  batch: readonly ShapingTrajectory[],
  ranges: readonly Int32Array[],
  rows: readonly Float32Array[],
  threshold: number,
  weight: number,
  inverseKappa: number,
): { sum: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < batch.length; i++) {
    const { lossMask, entropies } = batch[i]!;
    const r = ranges[i]!;
    const row = rows[i]!;
    for (let k = 0; k < r.length; k += 2) {
      const end = r[k + 1]!;
      // Branch-free: whether a token is in S is a coin flip to the branch predictor, so every candidate gets
      // psi times a 0/1 gate (outside S that writes a + 0 = a back; only a -0 would come back as +0).
      for (let p = r[k]!; p < end; p++) {
        const h = entropies[p]!;
        const a = row[p]!;
        const psi =
          +(h >= threshold) * (lossMask[p] !== 0 ? 1 : 0) * Math.min(weight * h, Math.abs(a) * inverseKappa);
        row[p] = a + psi;
        sum += psi;
        max = Math.max(max, psi);
      }
    }
  }
  return { sum, max };
}

/**
 * The clipped additive bonus of Cheng et al. 2025 (arXiv 2506.14758) on the tokens S:
 * psi_t = min(alpha * H^_t, |A_t| / kappa), A'_t = A_t + psi_t for t in S, A'_t = A_t elsewhere.
 * S = candidates with H_t >= the (1 - q_H) quantile of the candidates' entropies (ties included).
 */
function entropyBonusShaper(name: string, scope: Scope, options: EntropyBonusOptions): EntropyShaper {
  const defaults = scope.kind === 'all' ? { alpha: 0.4, topFraction: 1 } : { alpha: 0.2, topFraction: 0.2 };
  const alpha = numberOption(name, 'alpha', options.alpha, defaults.alpha, { min: 0 });
  const kappa = numberOption(name, 'kappa', options.kappa, 2, { min: 1 });
  const topFraction = numberOption(name, 'topFraction', options.topFraction, defaults.topFraction, {
    min: 0,
    max: 1,
  });
  const normalisation = choiceOption(
    name,
    'normalisation',
    options.normalisation,
    scope.kind === 'all' ? 'none' : 'selected-mean',
    ['selected-mean', 'vocab', 'none'],
  );
  const vocabScale =
    normalisation === 'vocab'
      ? Math.log(
          numberOption(name, 'vocabSize', options.vocabSize, Number.NaN, { min: 1, minExclusive: true }),
        )
      : 1;
  return {
    name,
    shape(batch, advantages, shapeOptions) {
      checkAligned(name, batch, advantages);
      const ranges = batch.map((t, i) => candidateRanges(t, i, scope));
      const candidates = gatherEntropies(batch, ranges);
      const selection = selectTop(candidates, topFraction);
      const threshold = selection?.threshold ?? null;
      const selectedCount = selection?.count ?? 0;
      const scale =
        normalisation === 'selected-mean'
          ? selectedCount > 0
            ? selection!.sum / selectedCount
            : 0
          : vocabScale;
      // With a zero scale every entropy in S is 0: H^ is 0/0, and the bonus is taken as 0.
      const weight = scale > 0 ? alpha / scale : 0;
      const shaped = shapingTarget(advantages, shapeOptions);
      const bonus =
        threshold === null
          ? { sum: 0, max: 0 }
          : addBonus(batch, ranges, shaped.perTrajectory, threshold, weight, 1 / kappa);
      return {
        advantages: shaped,
        diagnostics: {
          shaper: name,
          candidateTokens: candidates.length,
          selectedTokens: selectedCount,
          entropyThreshold: threshold,
          entropyScale: normalisation === 'none' ? null : scale,
          meanBonus: selectedCount > 0 ? bonus.sum / selectedCount : 0,
          maxBonus: bonus.max,
        },
      };
    },
  };
}

/**
 * TAO-RL's entropy-guided exploration: the bonus on S, the top q_H of M_post tokens (policy tokens after a
 * successful tool call) by rollout entropy, with H^ = H / mean(H over S).
 */
export function taoShaper(options: TaoShaperOptions = {}): EntropyShaper {
  checkOptionNames('tao', options, ['alpha', 'kappa', 'topFraction', 'normalisation', 'vocabSize', 'window']);
  const window = checkWindow('tao', options.window ?? 'segment');
  return entropyBonusShaper('tao', { kind: 'post-tool', window }, options);
}

/** Cheng et al. 2025's entropy advantage on every policy token (defaults alpha 0.4, raw entropy, q_H 1). */
export function chengShaper(options: EntropyBonusOptions = {}): EntropyShaper {
  checkOptionNames('cheng', options, ['alpha', 'kappa', 'topFraction', 'normalisation', 'vocabSize']);
  return entropyBonusShaper('cheng', { kind: 'all' }, options);
}

shaperRegistry.registerBuiltIn('tao', taoShaper);
shaperRegistry.registerBuiltIn('cheng', chengShaper);
