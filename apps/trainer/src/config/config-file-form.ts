import type { z } from 'zod';
import { sectionShape } from './config-issues.js';
import { type PluginSpec, pluginFields } from './fields.js';
import { type TrainerConfig, trainerSchema } from './trainer-config.js';

/** A config as a config file holds it (the schema's input): what `parseConfig` reads back to the same config. */
export type ConfigFile = Record<string, unknown>;

/** A YAML / JSON mapping (not a list, not null). */
export const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isPluginSpec = (value: unknown): value is PluginSpec =>
  isMapping(value) && typeof value.name === 'string' && isMapping(value.options);

/** A plug-in as a config file writes it: its name beside its options. */
const pluginEntry = (value: unknown): unknown =>
  isPluginSpec(value) ? { name: value.name, ...value.options } : value;

function fileForm(shape: z.ZodRawShape, values: Record<string, unknown>): ConfigFile {
  const written: ConfigFile = {};
  for (const [key, value] of Object.entries(values)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const fields = field === undefined ? undefined : sectionShape(field, []);
    if (field !== undefined && pluginFields.has(field))
      written[key] = Array.isArray(value) ? value.map(pluginEntry) : pluginEntry(value);
    else if (fields !== undefined && isMapping(value)) written[key] = fileForm(fields, value);
    else written[key] = value;
  }
  return written;
}

/**
 * A parsed config in the form a config file writes it: every plug-in (`{name, options}` once parsed) as
 * `{ name, ...options }`, the rest as it is. `parseConfig` of its JSON gives the same config back; fields the
 * schema does not know (a run recorded under older names) are kept as they are.
 */
export function configFileForm(config: TrainerConfig | Record<string, unknown>): ConfigFile {
  return fileForm(sectionShape(trainerSchema, [])!, config as Record<string, unknown>);
}
