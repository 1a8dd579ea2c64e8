import { copyTokenAdvantages } from './token-advantages';
import type { ShapingTrajectory, TokenAdvantages } from './types';

export interface ShapingDiagnostics {
  readonly shaper: string;
  /** Tokens the shaper considered: |M_post| for tao (and aepo's default scope), all policy tokens for cheng. */
  readonly candidateTokens: number;
  /** Tokens whose advantage the shaper may change: |S| for tao and cheng, the candidates for aepo. */
  readonly selectedTokens: number;
  /** The entropy at or above which a candidate is selected; null when no threshold applies. */
  readonly entropyThreshold: number | null;
  /** The entropy normaliser (mean over S, log|V|, 1) or aepo's entropy std; null when unused. */
  readonly entropyScale: number | null;
  /** Mean and max of A'_t - A_t over the selected tokens (0 when none). */
  readonly meanBonus: number;
  readonly maxBonus: number;
  /** A shaper's own named numbers for this batch (rates or means): the trainer writes them to its metrics lines. */
  readonly metrics?: Readonly<Record<string, number>>;
}

export interface ShapedAdvantages {
  readonly advantages: TokenAdvantages;
  readonly diagnostics: ShapingDiagnostics;
}

export interface ShapeOptions {
  /** Write into `advantages` instead of a copy: for a caller that owns them (saves one copy of the batch). */
  readonly inPlace?: boolean;
}

/** Reshapes token advantages with the rollout entropy; by default into new arrays in the input's layout. */
export interface EntropyShaper {
  readonly name: string;
  shape(
    batch: readonly ShapingTrajectory[],
    advantages: TokenAdvantages,
    options?: ShapeOptions,
  ): ShapedAdvantages;
}

/** The arrays a shaper writes to: the input itself when `inPlace`, else a copy in the same layout. */
export function shapingTarget(
  advantages: TokenAdvantages,
  options: ShapeOptions | undefined,
): TokenAdvantages {
  return options?.inPlace === true ? advantages : copyTokenAdvantages(advantages);
}

/** Every trajectory's masks, entropies and advantage row must be the same length. */
export function checkAligned(
  where: string,
  batch: readonly ShapingTrajectory[],
  advantages: TokenAdvantages,
): void {
  if (advantages.perTrajectory.length !== batch.length) {
    throw new Error(
      `${where}: ${advantages.perTrajectory.length} advantage rows for ${batch.length} trajectories`,
    );
  }
  batch.forEach((t, i) => {
    if (!(t.lossMask instanceof Uint8Array))
      throw new Error(`trajectory ${i}: field 'lossMask' must be a Uint8Array`);
    if (!(t.entropies instanceof Float32Array)) {
      throw new Error(`trajectory ${i}: field 'entropies' must be a Float32Array`);
    }
    const n = t.lossMask.length;
    if (t.entropies.length !== n || advantages.perTrajectory[i]!.length !== n) {
      throw new Error(
        `trajectory ${i}: lossMask has ${n} tokens, entropies ${t.entropies.length}, advantages ` +
          `${advantages.perTrajectory[i]!.length}; they must match`,
      );
    }
  });
}

export function nonFiniteEntropy(index: number, position: number, value: number): Error {
  return new Error(`trajectory ${index}: entropies[${position}] must be finite, got ${value}`);
}
