import { answerDiscriminability } from './answer-discriminability';
import { composeNamed } from './compose';
import { executionValidity } from './execution-validity';
import { checkOptionNames } from './options';
import { filterRegistry } from './registry';
import type { Filter, FilterMode } from './types';

export interface ToolAwareFilterOptions {
  /** C1's treatment of invalid trajectories: `drop` (default) or `mask`. */
  readonly mode?: FilterMode;
  /** C1's policy for trajectories without tool calls: `keep` (default) or `reject`. */
  readonly noToolCalls?: 'keep' | 'reject';
  /** C2's smallest surviving group (default 2). */
  readonly minGroupSize?: number;
  /** Bins of C2's pass-rate histogram (default 10). */
  readonly histogramBins?: number;
}

/**
 * TAO-RL's tool-aware trajectory filtering: execution validity (C1), then answer discriminability (C2) with
 * pass rates over C1's survivors. In `mask` mode the masked trajectories stay in their group and count in rho.
 */
export function toolAwareFilter(options: ToolAwareFilterOptions = {}): Filter {
  checkOptionNames('tool-aware', options, ['mode', 'noToolCalls', 'minGroupSize', 'histogramBins']);
  const { mode, noToolCalls, minGroupSize, histogramBins } = options;
  return composeNamed('tool-aware', [
    executionValidity({ mode, noToolCalls }),
    answerDiscriminability({ minGroupSize, histogramBins }),
  ]);
}

filterRegistry.registerBuiltIn('tool-aware', toolAwareFilter);
