import { z } from 'zod';
import { machineDependentDefaults } from './fields.js';
import { trainerSchema } from './trainer-config.js';

/**
 * The JSON Schema of a config file (what the YAML may hold, before defaults are filled), for editors that check
 * and complete YAML: apps/trainer/configs/taorl-config.schema.json, written by scripts/write-config-schema.ts.
 * Defaults that depend on the machine are left out, so the file is the same wherever it is written; the config
 * reference (scripts/reference/) passes `machineDefault`, the words it shows as their default instead.
 */
export function configJsonSchema(machineDefault?: string): Record<string, unknown> {
  return z.toJSONSchema(trainerSchema, {
    io: 'input',
    unrepresentable: 'throw',
    override: ({ zodSchema, jsonSchema }) => {
      if (!machineDependentDefaults.has(zodSchema)) return;
      if (machineDefault === undefined) delete jsonSchema.default;
      else jsonSchema.default = machineDefault;
    },
  }) as Record<string, unknown>;
}

/** The schema file's text: the JSON Schema with a title, two-space indented, ending in a newline. */
export function configJsonSchemaText(): string {
  const { $schema, ...rest } = configJsonSchema();
  const schema = { $schema, title: 'taorl trainer config', ...rest };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
