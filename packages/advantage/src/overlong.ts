import { checkOptionNames, numberOption } from './options';

export interface OverlongOptions {
  /** L_max: the response-token budget. */
  readonly maxLength: number;
  /** L_buf: the soft zone before L_max where the penalty ramps up (default L_max / 5). */
  readonly buffer?: number;
  /** Penalty at L_max (default 1.0). */
  readonly factor?: number;
}

function resolve(options: OverlongOptions): Required<OverlongOptions> {
  checkOptionNames('overlongPenalty', options, ['maxLength', 'buffer', 'factor']);
  const maxLength = numberOption('overlongPenalty', 'maxLength', options.maxLength, Number.NaN, {
    min: 0,
    minExclusive: true,
  });
  const buffer = numberOption('overlongPenalty', 'buffer', options.buffer, maxLength / 5, {
    min: 0,
    max: maxLength,
    minExclusive: true,
  });
  const factor = numberOption('overlongPenalty', 'factor', options.factor, 1, { min: 0 });
  return { maxLength, buffer, factor };
}

/**
 * DAPO's soft overlong punishment (verl reward_manager/dapo.py):
 * min(-(len - (L_max - L_buf)) / L_buf * factor, 0). Zero up to L_max - L_buf, -factor at L_max.
 */
export function overlongPenalty(length: number, options: OverlongOptions): number {
  const { maxLength, buffer, factor } = resolve(options);
  return penaltyFor(length, maxLength, buffer, factor);
}

function penaltyFor(length: number, maxLength: number, buffer: number, factor: number): number {
  if (!Number.isFinite(length) || length < 0) {
    throw new Error(`overlongPenalty: length must be a finite number >= 0, got ${length}`);
  }
  const penalty = (-(length - (maxLength - buffer)) / buffer) * factor;
  // + 0 turns the -0 of an unpenalised length into 0.
  return Math.min(penalty, 0) + 0;
}

/** The penalty as a function of length, with the options validated once. */
export function overlongPenaltyFn(options: OverlongOptions): (length: number) => number {
  const { maxLength, buffer, factor } = resolve(options);
  return (length) => penaltyFor(length, maxLength, buffer, factor);
}
