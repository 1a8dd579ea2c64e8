import {
  type AdvantageEstimator,
  type EntropyShaper,
  getAdvantageEstimator,
  getEntropyShaper,
} from '@taorl/advantage';
import { composeFilters, type Filter, getFilter } from '@taorl/filter';
import { type PolicyLossConfig, resolvePolicyLossConfig } from '@taorl/grpo';
import { checkSandboxOptions, getToolFormat, type ToolFormat } from '@taorl/sandbox';
import { ConfigError, type PluginSpec } from '../config/schema-dsl.js';
import type { TrainerConfig } from '../config/trainer-config.js';

/** Builds a plug-in from its registry; a registry's complaint (unknown name, bad option) names the config field. */
export function fromRegistry<T>(source: string, field: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new ConfigError(source, field, (error as Error).message);
  }
}

/** The RL plug-ins a config names: estimator, entropy shaper, filter chain, policy loss, tool format. */
export interface RlComponents {
  estimator: AdvantageEstimator;
  shaper: EntropyShaper;
  /** The filters composed in order; null when the list is empty. */
  filter: Filter | null;
  loss: PolicyLossConfig;
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
  return fromRegistry(source, 'tool.format', () => {
    if (Object.keys(format.options).length > 0) throw new Error('tool formats take no options');
    return getToolFormat(format.name);
  });
}

/** Resolves every named plug-in up front, so a typo fails before any model or sandbox starts. */
export function rlComponents(config: TrainerConfig, source: string): RlComponents {
  const { rl } = config;
  const filters = rl.filters.map((spec, i) =>
    fromRegistry(source, `rl.filters[${i}]`, withOptions(spec, getFilter)),
  );
  const loss = fromRegistry(source, 'rl.loss', () => {
    const known = Object.keys(resolvePolicyLossConfig());
    const unknown = Object.keys(rl.loss.options).filter((key) => !known.includes(key));
    if (unknown.length > 0)
      throw new Error(`unknown option(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
    const config: PolicyLossConfig = { ...rl.loss.options, name: rl.loss.name };
    resolvePolicyLossConfig(config);
    return config;
  });
  const { sandbox } = config.tool;
  fromRegistry(source, 'tool.sandbox', () =>
    checkSandboxOptions({ ...sandbox.options, backend: sandbox.name }),
  );
  return {
    estimator: fromRegistry(source, 'rl.estimator', withOptions(rl.estimator, getAdvantageEstimator)),
    shaper: fromRegistry(source, 'rl.shaper', withOptions(rl.shaper, getEntropyShaper)),
    filter: filters.length === 0 ? null : composeFilters(...filters),
    loss,
    format: toolFormatOf(config, source),
  };
}
