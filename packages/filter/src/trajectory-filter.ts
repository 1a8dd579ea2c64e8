import type { Filter, FilterableTrajectory } from './types';
import { applyVerdicts, defaultPositions, type Verdict } from './verdicts';

export type { Verdict } from './verdicts';

/**
 * A filter that judges each trajectory on its own: `decide` returns null to keep it, or the action (`drop` or
 * `mask`) and a reason. The way to write your own per-trajectory filter; group filters see the whole batch.
 */
export function trajectoryFilter(
  name: string,
  decide: (trajectory: FilterableTrajectory, position: number) => Verdict,
): Filter {
  return {
    name,
    apply(batch, positions) {
      const at = defaultPositions(batch.length, positions);
      return applyVerdicts(
        name,
        batch,
        at,
        batch.map((t, i) => decide(t, at[i]!)),
      );
    },
  };
}
