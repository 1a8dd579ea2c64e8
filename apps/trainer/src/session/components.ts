import {
  type AdvantageEstimator,
  type EntropyShaper,
  getAdvantageEstimator,
  getEntropyShaper,
} from '@taorl/advantage';
import { composeFilters, type Filter, getFilter } from '@taorl/filter';
import { getPolicyLoss, type PolicyLossConfig, resolvePolicyLossConfig } from '@taorl/grpo';
import { closestName, UNKNOWN_PLUGIN } from '@taorl/plugin-registry';
import { checkSandboxOptions, getToolFormat, type ToolFormat } from '@taorl/sandbox';
import { ConfigError } from '../config/config-error.js';
import type { PluginSpec } from '../config/fields.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { type LearnerSettings, learnerSettings } from '../rl/learner-settings.js';

/** What an unknown plug-in name may mean in a trainer config: its module was never loaded. */
const loadHint =
  " (a plug-in of your own: name its module under 'plugins:' in the config or with --plugin <module>)";

/** Builds a plug-in from its registry; a registry's complaint (unknown name, bad option) names the config field. */
export function fromRegistry<T>(source: string, field: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    const unknown = (error as { code?: unknown }).code === UNKNOWN_PLUGIN;
    throw new ConfigError(source, field, `${(error as Error).message}${unknown ? loadHint : ''}`);
  }
}

/** The RL plug-ins a config names: estimator, entropy shaper, filter chain, policy loss, tool format. */
export interface RlComponents {
  estimator: AdvantageEstimator;
  shaper: EntropyShaper;
  /** The filters composed in order; null when the list is empty. */
  filter: Filter | null;
  loss: PolicyLossConfig;
  /** rl.oldLogProbs and rl.correction. */
  learner: LearnerSettings;
  format: ToolFormat;
}

function withOptions<T>(
  spec: PluginSpec,
  build: (name: string, options: Record<string, unknown>) => T,
): () => T {
  return () => build(spec.name, spec.options);
}

export function toolFormatOf(config: TrainerConfig, source: string): ToolFormat {
  const { format } = config.tool;
  return fromRegistry(source, 'tool.format', withOptions(format, getToolFormat));
}

/** The fields of PolicyLossConfig that every loss shares (clipLow, aggregation, ...), not the loss's own options. */
const sharedLossFields = Object.keys(resolvePolicyLossConfig()).filter(
  (field) => field !== 'name' && field !== 'options',
);

/**
 * `rl.loss` as a PolicyLossConfig: the shared fields (clipLow, klCoef, ...) as they are, every other field an
 * option of the named loss, which the loss checks (the built-in losses take none). A misspelled shared field is
 * an option the loss refuses; the error then names the shared field it resembles.
 */
function policyLossConfigOf(spec: PluginSpec): PolicyLossConfig {
  const shared: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(spec.options)) {
    (sharedLossFields.includes(field) ? shared : own)[field] = value;
  }
  const config: PolicyLossConfig = { ...shared, name: spec.name, options: own };
  try {
    getPolicyLoss(spec.name, own);
  } catch (error) {
    const hints = Object.keys(own).flatMap((field) => {
      const near = closestName(field, sharedLossFields);
      return near === undefined ? [] : [`'${near}' for '${field}'`];
    });
    const hint = hints.length === 0 ? '' : ` (did you mean ${hints.join(', ')}?)`;
    throw new Error(
      `${(error as Error).message}${hint}; fields every loss takes: ${sharedLossFields.join(', ')}`,
    );
  }
  resolvePolicyLossConfig(config);
  return config;
}

/**
 * Filters that would act on every group, found before any step: resample-on-correct keeping as many as a group
 * has (it would never resample), and a minimum group size above what reaches the filter (every group emptied).
 * A group reaches each filter with rl.groupSize members, or resample-on-correct's `size` after it.
 */
function checkGroupSizes(filters: readonly PluginSpec[], groupSize: number, source: string): void {
  let members = groupSize;
  filters.forEach((spec, i) => {
    const { size, minGroupSize } = spec.options;
    if (spec.name === 'resample-on-correct' && typeof size === 'number') {
      if (size >= members) {
        throw new ConfigError(
          source,
          `rl.filters[${i}].size`,
          `resample-on-correct keeps ${size} of each group of ${members} rollouts (rl.groupSize ${groupSize}), so ` +
            'it would never resample; roll out more (rl.groupSize, e.g. twice size, as rStar2-Agent) or keep fewer',
        );
      }
      members = size;
    }
    if (
      (spec.name === 'answer-discriminability' || spec.name === 'tool-aware') &&
      typeof minGroupSize === 'number' &&
      minGroupSize > members
    ) {
      throw new ConfigError(
        source,
        `rl.filters[${i}].minGroupSize`,
        `${minGroupSize} is more than the ${members} members a group has when it reaches ${spec.name}, so every ` +
          'group would be dropped and no step would train',
      );
    }
  });
}

/** Resolves every named plug-in up front, so a typo fails before any model or sandbox starts. */
export function rlComponents(config: TrainerConfig, source: string): RlComponents {
  const { rl } = config;
  const filters = rl.filters.map((spec, i) =>
    fromRegistry(source, `rl.filters[${i}]`, withOptions(spec, getFilter)),
  );
  checkGroupSizes(rl.filters, rl.groupSize, source);
  const loss = fromRegistry(source, 'rl.loss', () => policyLossConfigOf(rl.loss));
  const { sandbox } = config.tool;
  fromRegistry(source, 'tool.sandbox', () =>
    checkSandboxOptions({ ...sandbox.options, backend: sandbox.name }),
  );
  return {
    estimator: fromRegistry(source, 'rl.estimator', withOptions(rl.estimator, getAdvantageEstimator)),
    shaper: fromRegistry(source, 'rl.shaper', withOptions(rl.shaper, getEntropyShaper)),
    filter: filters.length === 0 ? null : composeFilters(...filters),
    loss,
    learner: learnerSettings(config, source),
    format: toolFormatOf(config, source),
  };
}
