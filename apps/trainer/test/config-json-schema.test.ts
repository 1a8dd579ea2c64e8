import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText } from '../src/config/json-schema.js';

const configs = new URL('../configs/', import.meta.url);
const SCHEMA_FILE = 'taorl-config.schema.json';

describe('the JSON Schema of config files', () => {
  it('is committed as generated from the config schema (else: pnpm --filter @taorl/trainer config-schema)', () => {
    expect(readFileSync(new URL(SCHEMA_FILE, configs), 'utf8')).toBe(configJsonSchemaText());
  });

  it('is referenced by every preset, for editors that check YAML', () => {
    const presets = readdirSync(configs).filter((name) => name.endsWith('.yaml'));
    expect(presets.length).toBeGreaterThanOrEqual(3);
    for (const preset of presets) {
      const [first] = readFileSync(new URL(preset, configs), 'utf8').split('\n');
      expect(first, preset).toBe(`# yaml-language-server: $schema=./${SCHEMA_FILE}`);
    }
  });

  it('describes fields with their docs and defaults, refuses unknown ones, and leaves machine defaults out', () => {
    type Node = { properties: Record<string, Node>; [key: string]: unknown };
    const schema = configJsonSchema() as unknown as Node;
    expect(schema.additionalProperties).toBe(false);
    const rl = schema.properties.rl!;
    expect(rl.additionalProperties).toBe(false);
    expect(rl.properties.groupSize).toMatchObject({
      type: 'integer',
      default: 8,
      minimum: 1,
      maximum: 4096,
      description: 'samples per question',
    });
    expect(rl.properties.learningRate).toMatchObject({ type: 'number', default: 5e-5, exclusiveMinimum: 0 });
    expect(rl.properties.loss).toMatchObject({ default: 'vanilla' });
    expect(schema.properties.backend).toMatchObject({ enum: ['wasm', 'cpu', 'tensorflow'], default: 'wasm' });
    // workers defaults to the cores available: no default in a file that must not depend on the machine.
    expect(schema.properties.workers).not.toHaveProperty('default');
    expect(schema.properties.workers).toMatchObject({ type: 'integer', minimum: 1 });
  });
});
