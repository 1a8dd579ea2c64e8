import type { Deadline } from '../limits';

/** How "50%" relates to a plain number: 50 (strip), 0.5 (ratio), or either of them (Qwen's include_percentage). */
export type PercentPolicy = 'strip' | 'ratio' | 'either';

/** Everything one comparison needs besides the two answers. */
export interface CompareContext {
  readonly relTol: number;
  readonly percent: PercentPolicy;
  readonly deadline: Deadline;
  /** Whether the prediction / the gold carried a percent sign (removed during normalisation). */
  readonly predPercent: boolean;
  readonly goldPercent: boolean;
  /** Whether the side with the percent sign may not drop it (a mixed number: "4 4/9%" is 40/900 only). */
  readonly percentBinding: boolean;
}
