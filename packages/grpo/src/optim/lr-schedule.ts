/**
 * Learning-rate schedules (the shapes of transformers' get_constant_schedule_with_warmup and
 * get_cosine_schedule_with_warmup, which verl uses):
 * - `constant`: lr
 * - `linear-warmup`: lr min(1, (s + 1) / warmupSteps), then constant
 * - `cosine`: the same warm-up, then lr (m + (1 - m) (1 + cos(pi p)) / 2) with p = (s + 1 - warmupSteps) /
 *   (totalSteps - warmupSteps) clamped to [0, 1] and m = minRatio.
 * DECISION: warm-up counts from s + 1, so the first step already moves the weights (transformers' first step
 * has learning rate 0).
 */
export type LearningRateSchedule =
  | { kind: 'constant' }
  | { kind: 'linear-warmup'; warmupSteps: number }
  | { kind: 'cosine'; totalSteps: number; warmupSteps?: number; minRatio?: number };

/** The learning rate of optimizer step `step` (0 for the first) under `schedule`, from base rate `lr`. */
export function learningRateAt(lr: number, schedule: LearningRateSchedule, step: number): number {
  if (schedule.kind === 'constant') return lr;
  const warmupSteps = schedule.warmupSteps ?? 0;
  if (step + 1 < warmupSteps) return (lr * (step + 1)) / warmupSteps;
  if (schedule.kind === 'linear-warmup') return lr;
  const minRatio = schedule.minRatio ?? 0;
  const progress = Math.min(
    1,
    Math.max(0, (step + 1 - warmupSteps) / Math.max(1, schedule.totalSteps - warmupSteps)),
  );
  return lr * (minRatio + ((1 - minRatio) * (1 + Math.cos(Math.PI * progress))) / 2);
}

/** Rejects malformed schedules by field. */
export function validateSchedule(schedule: LearningRateSchedule): void {
  const kinds = ['constant', 'linear-warmup', 'cosine'];
  if (!kinds.includes(schedule.kind)) {
    throw new Error(`schedule.kind must be one of ${kinds.join(', ')}, got "${String(schedule.kind)}"`);
  }
  if (schedule.kind === 'constant') return;
  const warmupSteps = schedule.warmupSteps ?? 0;
  if (!(Number.isInteger(warmupSteps) && warmupSteps >= 0)) {
    throw new Error(`schedule.warmupSteps must be an integer >= 0, got ${warmupSteps}`);
  }
  if (schedule.kind === 'cosine') {
    if (!(Number.isInteger(schedule.totalSteps) && schedule.totalSteps > warmupSteps)) {
      throw new Error(
        `schedule.totalSteps must be an integer > warmupSteps (${warmupSteps}), got ${schedule.totalSteps}`,
      );
    }
    const minRatio = schedule.minRatio ?? 0;
    if (!(minRatio >= 0 && minRatio <= 1))
      throw new Error(`schedule.minRatio must be in [0, 1], got ${minRatio}`);
  }
}
