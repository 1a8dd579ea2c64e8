// Writes configs/taorl-config.schema.json, the JSON Schema of a config file, from the config's zod schema.
// Run after changing a config field: pnpm --filter @taorl/trainer config-schema (a test fails while it is stale).
import { writeFileSync } from 'node:fs';
import { configJsonSchemaText } from '../src/config/json-schema.js';

const target = new URL('../configs/taorl-config.schema.json', import.meta.url);
writeFileSync(target, configJsonSchemaText());
console.log(`wrote ${target.pathname}`);
