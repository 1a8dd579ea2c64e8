/**
 * docs/reference/config.md: every field of a trainer config, read from the config's zod schema through zod's
 * JSON Schema export (the descriptions are the schema's own), so that the page cannot drift from what a config
 * may hold.
 */
import { advantageEstimatorNames, entropyShaperNames } from '@taorl/advantage';
import { filterNames } from '@taorl/filter';
import { policyLossNames, resolvePolicyLossConfig } from '@taorl/grpo';
import { sandboxBackendNames, toolFormatNames } from '@taorl/sandbox';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { renamedFields } from '../../src/config/renamed-fields.js';
import { cell, code, generatedNote, table } from './markdown.js';

/** A node of the JSON Schema, as far as the page reads it. */
interface SchemaNode {
  description?: string;
  default?: unknown;
  type?: string;
  enum?: readonly unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  items?: SchemaNode;
  anyOf?: readonly SchemaNode[];
  properties?: Record<string, SchemaNode>;
}

/** What the Default column shows for a field whose default depends on the machine. */
const MACHINE_DEFAULT = 'depends on the machine';

/**
 * The registries behind the fields that name plug-ins. A plug-in field missing here fails the page, so a new one
 * cannot go undocumented.
 */
const pluginNames: Readonly<Record<string, () => string[]>> = {
  'tool.format': toolFormatNames,
  'tool.sandbox': sandboxBackendNames,
  'rl.estimator': advantageEstimatorNames,
  'rl.filters': filterNames,
  'rl.shaper': entropyShaperNames,
  'rl.loss': policyLossNames,
};

/** A plug-in field: a name, or a mapping with `name` and the plug-in's options (fields.ts `plugin`). */
const isPluginSpec = (node: SchemaNode): boolean =>
  node.anyOf?.length === 2 &&
  node.anyOf[0]?.type === 'string' &&
  node.anyOf[1]?.type === 'object' &&
  node.anyOf[1].properties?.name !== undefined;

const isSection = (node: SchemaNode): boolean => node.type === 'object' && node.properties !== undefined;

/** The node without a `null` alternative (a field that may be left out or null), and whether it had one. */
function withoutNull(node: SchemaNode): { node: SchemaNode; nullable: boolean } {
  const alternatives = node.anyOf?.filter((alternative) => alternative.type !== 'null');
  if (node.anyOf === undefined || alternatives?.length !== 1 || alternatives[0] === undefined)
    return { node, nullable: false };
  return { node: { ...alternatives[0], ...node, anyOf: undefined }, nullable: true };
}

function typeOf(node: SchemaNode): string {
  if (isPluginSpec(node)) return 'plug-in';
  if (node.type === 'array' && node.items !== undefined) {
    return isPluginSpec(node.items) ? 'list of plug-ins' : `list of ${typeOf(node.items)}s`;
  }
  if (node.type === undefined)
    throw new Error(`the config reference cannot show the type of ${JSON.stringify(node)}`);
  return node.type;
}

/** Bounds of a number, "≥ 1", "(0, 1]"; the integers' implicit 2^53 - 1 ceiling is left out. */
function range(node: SchemaNode): string | undefined {
  const low =
    node.exclusiveMinimum !== undefined
      ? { value: node.exclusiveMinimum, open: true }
      : node.minimum !== undefined
        ? { value: node.minimum, open: false }
        : undefined;
  const high = node.maximum === Number.MAX_SAFE_INTEGER ? undefined : node.maximum;
  if (low !== undefined && high !== undefined) return `${low.open ? '(' : '['}${low.value}, ${high}]`;
  if (low !== undefined) return `${low.open ? '>' : '≥'} ${low.value}`;
  if (high !== undefined) return `≤ ${high}`;
  return undefined;
}

function allowed(path: string, node: SchemaNode): string {
  if (isPluginSpec(node) || (node.type === 'array' && node.items !== undefined && isPluginSpec(node.items))) {
    const names = pluginNames[path];
    if (names === undefined)
      throw new Error(
        `${path} names a plug-in: add its registry to pluginNames in scripts/reference/config-page.ts`,
      );
    return `built in: ${names().sort().map(code).join(', ')}; or a name a plug-in module registers`;
  }
  if (node.enum !== undefined) return node.enum.map((value) => code(String(value))).join(', ');
  if (node.type === 'array' && node.items !== undefined) {
    const items = allowed(path, node.items);
    return items === '' ? '' : `each ${items}`;
  }
  if (node.type === 'string' && node.minLength !== undefined && node.minLength > 0) return 'not empty';
  return range(node) ?? '';
}

function defaultOf(node: SchemaNode, nullable: boolean): string {
  if (node.default === MACHINE_DEFAULT) return MACHINE_DEFAULT;
  if (typeof node.default === 'string') return code(node.default);
  if (node.default !== undefined) return code(JSON.stringify(node.default));
  return nullable ? 'unset' : 'unset (see description)';
}

interface FieldRow {
  path: string;
  cells: string[];
}

function fieldRow(path: string, field: SchemaNode): FieldRow {
  const { node, nullable } = withoutNull(field);
  const type = `${typeOf(node)}${nullable ? ' or null' : ''}`;
  return {
    path,
    cells: [code(path), type, defaultOf(node, nullable), allowed(path, node), cell(node.description ?? '')],
  };
}

interface Section {
  path: string;
  description: string;
  fields: FieldRow[];
}

/** The sections of the schema depth-first (the top level first), each with its own fields. */
function sections(path: string, node: SchemaNode, description: string): Section[] {
  const fields: FieldRow[] = [];
  const nested: Section[] = [];
  for (const [key, field] of Object.entries(node.properties ?? {})) {
    const fieldPath = path === '' ? key : `${path}.${key}`;
    if (isSection(field)) nested.push(...sections(fieldPath, field, field.description ?? ''));
    else fields.push(fieldRow(fieldPath, field));
  }
  return [{ path, description, fields }, ...nested];
}

const FIELD_HEADERS = ['Field', 'Type', 'Default', 'Allowed', 'Description'];

function sectionText(section: Section): string {
  const heading = section.path === '' ? '## Top level' : `## \`${section.path}\``;
  const lines = [heading, ''];
  if (section.description !== '') lines.push(`${cell(section.description)}.`, '');
  lines.push(
    table(
      FIELD_HEADERS,
      section.fields.map((field) => field.cells),
    ),
  );
  return lines.join('\n');
}

/** The loss fields without a default value: their type and what leaving them unset means. */
const UNSET_LOSS_FIELDS: Record<string, { type: string; unset: string }> = {
  horizon: { type: 'number', unset: "unset: the batch's longest response, in tokens" },
};

/** The fields every policy loss takes beside its own options, with their defaults (@taorl/grpo PolicyLossConfig). */
function lossFields(): string {
  const { name: _name, options: _options, ...shared } = resolvePolicyLossConfig();
  const rows = Object.entries(shared).map(([field, value]) => {
    const unset = UNSET_LOSS_FIELDS[field];
    if (value === undefined && unset === undefined)
      throw new Error(`rl.loss.${field}: unset by default; say its type and meaning in UNSET_LOSS_FIELDS`);
    return [
      code(`rl.loss.${field}`),
      value === undefined ? unset!.type : typeof value,
      value === undefined ? unset!.unset : code(typeof value === 'string' ? value : JSON.stringify(value)),
    ];
  });
  return [
    '## `rl.loss` fields',
    '',
    "Written in the `rl.loss` mapping beside `name` (`rl: {loss: {name: vanilla, clipHigh: 0.28}}`), for every policy loss, or one at a time with `--set rl.loss.clipHigh=0.3`; any other field is an option of the named loss, which the loss checks (the built-in losses take none). Their meaning: `PolicyLossConfig` in @taorl/grpo's API reference (`pnpm docs:api`).",
    '',
    table(['Field', 'Type', 'Default'], rows),
  ].join('\n');
}

function deprecatedNames(): string {
  const rows = Object.entries(renamedFields).map(([old, current]) => [
    code(old),
    code(current),
    'deprecated: read with a warning until the next minor version',
  ]);
  return [
    '## Deprecated names',
    '',
    'A config (or a recorded run) that uses an old name is read as the new one, with a warning; giving both is an error. ' +
      '`rollout.workers` and `sft.workers` both became `workers`: given together, the larger value is kept.',
    '',
    table(['Old name', 'Read as', 'Status'], rows),
  ].join('\n');
}

/** The page, and how many fields it lists (for the report of `pnpm docs:reference`). */
export function configReference(): { text: string; fields: number } {
  const schema = configJsonSchema(MACHINE_DEFAULT) as SchemaNode;
  const all = sections('', schema, '');
  const fields = all.reduce((sum, section) => sum + section.fields.length, 0);
  const text = [
    '# Config reference',
    '',
    generatedNote("the trainer's config schema (apps/trainer/src/config/trainer-config.ts)"),
    '',
    'Every field of a `taorl` config file (YAML), by its dotted path. Every field may be left out (a section left out, ' +
      'or null, takes every default); an unknown field is an error naming it. A command line sets one field with ' +
      '`--set path=value` ([CLI reference](cli.md)). Editors that read JSON Schema check and complete a config with ' +
      '[taorl-config.schema.json](../../apps/trainer/configs/taorl-config.schema.json), generated from the same schema; ' +
      'the presets are in [apps/trainer/configs/](../../apps/trainer/configs/).',
    '',
    "A **plug-in** field takes a name (`rl: {shaper: tao}`) or a mapping with `name` and the plug-in's options " +
      '(`rl: {shaper: {name: tao, alpha: 0.2}}`); the plug-in checks its options when the run is assembled. `--set` reaches ' +
      'one option of a single plug-in by its dotted path (`--set rl.shaper.alpha=0.1` keeps the shaper named in the config, ' +
      "or the default one); a list of plug-ins (`rl.filters`) is set whole (`--set 'rl.filters=[{name: execution-validity, mode: mask}]'`). The built-in " +
      "plug-ins check their options in code rather than with a schema, so their options are documented in each package's " +
      'README and API reference, not here ([plug-ins.md](../plug-ins.md)).',
    '',
    ...all.flatMap((section) => [sectionText(section), '']),
    lossFields(),
    '',
    deprecatedNames(),
    '',
  ].join('\n');
  return { text, fields };
}
