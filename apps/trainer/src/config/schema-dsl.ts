/**
 * A tiny schema language for YAML configs: one declaration gives the TypeScript type (via `Infer`), the defaults,
 * and a validator whose errors name the offending field by its dotted path. Unknown fields are errors, so a typo
 * in a config never silently falls back to a default.
 */

export interface NumberField {
  readonly kind: 'number';
  readonly default: number;
  readonly integer?: boolean;
  /** Inclusive lower bound. */
  readonly min?: number;
  /** Exclusive lower bound (e.g. a learning rate must be > 0). */
  readonly above?: number;
  readonly max?: number;
  readonly doc: string;
}

export interface StringField<T extends string = string> {
  readonly kind: 'string';
  readonly default: T;
  /** When set, the value must be one of these (closed sets only; plug-in names are checked by registries). */
  readonly oneOf?: readonly T[];
  /** The empty string is refused (a path: '' would silently mean the working directory). */
  readonly nonEmpty?: boolean;
  readonly doc: string;
}

/** A string that may be left out; when given it must not be empty (every such field names a path or a model). */
export interface OptionalStringField {
  readonly kind: 'optionalString';
  readonly doc: string;
}

export interface BooleanField {
  readonly kind: 'boolean';
  readonly default: boolean;
  readonly doc: string;
}

/**
 * A list of strings (in YAML a sequence, or one string for a list of one, which keeps `--set` short). With
 * `format: 'http-url'` each item must be an http(s) URL with a host.
 */
export interface StringListField {
  readonly kind: 'stringList';
  readonly default: readonly string[];
  readonly format?: 'http-url';
  readonly doc: string;
}

/** A plug-in chosen by name, with the options its registry factory validates. */
export interface PluginSpec {
  name: string;
  options: Record<string, unknown>;
}

/**
 * A plug-in: in YAML either a bare name (`grpo`) or a mapping with `name` and the plug-in's options
 * (`{ name: tao, alpha: 0.2 }`). The options are checked by the plug-in's own factory when the run is assembled.
 */
export interface PluginField {
  readonly kind: 'plugin';
  readonly default: PluginSpec;
  readonly doc: string;
}

/** An ordered list of plug-ins (e.g. filters), each written as for PluginField. */
export interface PluginListField {
  readonly kind: 'pluginList';
  readonly default: readonly PluginSpec[];
  readonly doc: string;
}

export interface SectionField<S extends Fields = Fields> {
  readonly kind: 'section';
  readonly fields: S;
  readonly doc: string;
}

export type Field =
  | NumberField
  | StringField
  | OptionalStringField
  | BooleanField
  | StringListField
  | PluginField
  | PluginListField
  | SectionField;
export type Fields = { readonly [name: string]: Field };

/** The plain-data type a schema validates to. */
export type Infer<F> = F extends NumberField
  ? number
  : F extends StringField<infer T>
    ? T
    : F extends OptionalStringField
      ? string | undefined
      : F extends BooleanField
        ? boolean
        : F extends StringListField
          ? string[]
          : F extends PluginField
            ? PluginSpec
            : F extends PluginListField
              ? PluginSpec[]
              : F extends SectionField<infer S>
                ? { [K in keyof S]: Infer<S[K]> }
                : never;

export const num = (doc: string, value: number, bounds: Omit<NumberField, 'kind' | 'default' | 'doc'> = {}) =>
  ({ kind: 'number', default: value, doc, ...bounds }) as const satisfies NumberField;
export const int = (
  doc: string,
  value: number,
  bounds: Omit<NumberField, 'kind' | 'default' | 'doc' | 'integer'> = {},
) => ({ kind: 'number', default: value, doc, integer: true, ...bounds }) as const satisfies NumberField;
export const str = <T extends string>(doc: string, value: T, oneOf?: readonly T[]): StringField<T> =>
  oneOf === undefined
    ? { kind: 'string', default: value, doc }
    : { kind: 'string', default: value, doc, oneOf };
/** A string field that must not be empty, such as a folder. */
export const nonEmptyStr = (doc: string, value: string): StringField => ({
  kind: 'string',
  default: value,
  doc,
  nonEmpty: true,
});
export const optionalStr = (doc: string): OptionalStringField => ({ kind: 'optionalString', doc });
export const bool = (doc: string, value: boolean): BooleanField => ({ kind: 'boolean', default: value, doc });
export const strList = (
  doc: string,
  value: readonly string[],
  format?: StringListField['format'],
): StringListField =>
  format === undefined
    ? { kind: 'stringList', default: value, doc }
    : { kind: 'stringList', default: value, doc, format };
const spec = (name: string, options: Record<string, unknown> = {}): PluginSpec => ({ name, options });
export const plugin = (doc: string, name: string, options: Record<string, unknown> = {}): PluginField => ({
  kind: 'plugin',
  default: spec(name, options),
  doc,
});
export const pluginList = (doc: string, names: readonly string[]): PluginListField => ({
  kind: 'pluginList',
  default: names.map((name) => spec(name)),
  doc,
});
export const section = <S extends Fields>(doc: string, fields: S): SectionField<S> => ({
  kind: 'section',
  fields,
  doc,
});

/** A config error that names the source (file) and the dotted field path. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${source}: ${field === '' ? '(root)' : field}: ${problem}`);
    this.name = 'ConfigError';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function closest(name: string, options: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length]!;
  };
  let best: string | undefined;
  let bestDistance = 3;
  for (const option of options) {
    const d = distance(name.toLowerCase(), option.toLowerCase());
    if (d < bestDistance) {
      best = option;
      bestDistance = d;
    }
  }
  return best;
}

function validateNumber(field: NumberField, value: unknown, fail: (problem: string) => never): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail(`expected a finite number, got ${describe(value)}`);
  if (field.integer === true && !Number.isInteger(value)) fail(`expected an integer, got ${value}`);
  // Above 2^53 integers are no longer exact, and sizes that large end in a RangeError deep inside a run.
  if (field.integer === true && !Number.isSafeInteger(value))
    fail(`expected an integer of at most ${Number.MAX_SAFE_INTEGER}, got ${value}`);
  if (field.min !== undefined && value < field.min) fail(`must be >= ${field.min}, got ${value}`);
  if (field.above !== undefined && value <= field.above) fail(`must be > ${field.above}, got ${value}`);
  if (field.max !== undefined && value > field.max) fail(`must be <= ${field.max}, got ${value}`);
  return value;
}

function validateField(field: Field, value: unknown, path: string, source: string): unknown {
  const fail = (problem: string): never => {
    throw new ConfigError(source, path, problem);
  };
  switch (field.kind) {
    case 'number':
      return value === undefined ? field.default : validateNumber(field, value, fail);
    case 'string':
      if (value === undefined) return field.default;
      if (typeof value !== 'string') return fail(`expected a string, got ${describe(value)}`);
      if (field.oneOf !== undefined && !field.oneOf.includes(value)) {
        return fail(`'${value}' is not one of: ${field.oneOf.join(', ')}`);
      }
      if (field.nonEmpty === true && value === '') return fail('must not be empty');
      return value;
    case 'optionalString':
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'string') return fail(`expected a string, got ${describe(value)}`);
      return value === '' ? fail('must not be empty (leave the field out, or null, for the default)') : value;
    case 'boolean':
      if (value === undefined) return field.default;
      return typeof value === 'boolean' ? value : fail(`expected true or false, got ${describe(value)}`);
    case 'stringList':
      return value === undefined ? [...field.default] : validateStringList(field, value, path, source);
    case 'plugin':
      return value === undefined ? structuredClone(field.default) : validatePlugin(value, path, source);
    case 'pluginList':
      if (value === undefined) return structuredClone(field.default);
      if (!Array.isArray(value)) return fail(`expected a list of plug-ins, got ${describe(value)}`);
      return value.map((item, index) => validatePlugin(item, `${path}[${index}]`, source));
    case 'section':
      return validateSection(field.fields, value, path, source);
  }
}

function validateStringList(field: StringListField, value: unknown, path: string, source: string): string[] {
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items)) {
    throw new ConfigError(source, path, `expected a list of strings, got ${describe(value)}`);
  }
  return items.map((item, index) => {
    const where = `${path}[${index}]`;
    if (typeof item !== 'string') {
      throw new ConfigError(source, where, `expected a string, got ${describe(item)}`);
    }
    if (field.format === 'http-url' && !isHttpUrl(item)) {
      throw new ConfigError(
        source,
        where,
        `expected an http(s) URL such as http://10.0.0.5:8000, got ${JSON.stringify(item)}`,
      );
    }
    return item;
  });
}

/** True for an http(s) URL with a host, such as a server's base URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function validatePlugin(value: unknown, path: string, source: string): PluginSpec {
  if (typeof value === 'string' && value !== '') return spec(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { name, ...options } = value as Record<string, unknown>;
    if (typeof name === 'string' && name !== '') return spec(name, options);
    throw new ConfigError(
      source,
      `${path}.name`,
      `expected the plug-in's name (a string), got ${describe(name)}`,
    );
  }
  throw new ConfigError(
    source,
    path,
    `expected a plug-in name or a mapping with 'name', got ${describe(value)}`,
  );
}

function validateSection(
  fields: Fields,
  value: unknown,
  path: string,
  source: string,
): Record<string, unknown> {
  const input = value ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(source, path, `expected a mapping, got ${describe(input)}`);
  }
  const known = Object.keys(fields);
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) {
      const hint = closest(key, known);
      const where = path === '' ? key : `${path}.${key}`;
      throw new ConfigError(
        source,
        where,
        `unknown field${hint === undefined ? '' : ` (did you mean '${hint}'?)`}; known: ${known.join(', ')}`,
      );
    }
  }
  const result: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    result[name] = validateField(
      field,
      (input as Record<string, unknown>)[name],
      path === '' ? name : `${path}.${name}`,
      source,
    );
  }
  return result;
}

/** Validates `value` against `schema`, filling defaults; throws ConfigError naming `source` and the field. */
export function validate<S extends Fields>(
  schema: S,
  value: unknown,
  source: string,
): Infer<SectionField<S>> {
  return validateSection(schema, value, '', source) as Infer<SectionField<S>>;
}

/** Resolves a dotted path to its field spec, or undefined when the schema has no such field. */
export function fieldAt(schema: Fields, path: string): Field | undefined {
  let fields: Fields | undefined = schema;
  let found: Field | undefined;
  for (const part of path.split('.')) {
    found = fields?.[part];
    if (found === undefined) return undefined;
    fields = found.kind === 'section' ? found.fields : undefined;
  }
  return found;
}
