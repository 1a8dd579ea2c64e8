/**
 * From zod's issues to the trainer's config errors: one error, naming the source, the field's dotted path and the
 * problem in the words the config docs use ("must be > 0, got 0", "unknown field (did you mean 'groupSize'?)").
 */
import { closestName } from '@taorl/plugin-registry';
import type { z } from 'zod';
import { ConfigError } from './config-error.js';

/** How a value reads in a message: its kind for lists and mappings, else its type and value. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** `rl.filters[1].name` from zod's path. */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

const EXPECTED: Record<string, string> = {
  number: 'a finite number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
};

/** The message of an issue zod raises, in the config's words; undefined keeps the field's own message. */
const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  const got = (value: unknown) => (typeof value === 'number' ? String(value) : describe(value));
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return `expected an integer, got ${got(issue.input)}`;
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describe(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      return `must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}, got ${got(issue.input)}`;
    case 'too_big':
      if (issue.origin === 'int')
        return `expected an integer of at most ${issue.maximum}, got ${got(issue.input)}`;
      return `must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}, got ${got(issue.input)}`;
    case 'invalid_value': {
      if (typeof issue.input !== 'string') return `expected a string, got ${describe(issue.input)}`;
      const values = issue.values.map(String);
      const near = closestName(issue.input, values);
      const hint = near === undefined ? '' : ` (did you mean '${near}'?)`;
      return `'${issue.input}' is not one of: ${values.join(', ')}${hint}`;
    }
    default:
      return undefined;
  }
};

/** The names of the fields of the section at `path` (for unknown-field messages), or [] when it is no section. */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const shape = sectionShape(schema, path);
  return shape === undefined ? [] : Object.keys(shape);
}

/** The shape of the mapping at `path`, looking through defaults, optionals and pipes. */
export function sectionShape(
  schema: z.core.$ZodType,
  path: readonly PropertyKey[],
): z.ZodRawShape | undefined {
  let current: z.core.$ZodType | undefined = schema;
  for (let depth = 0; ; ) {
    const def: z.core.$ZodTypeDef = current._zod.def;
    if (def.type === 'object') {
      const shape = (def as z.core.$ZodObjectDef).shape as z.ZodRawShape;
      if (depth === path.length) return shape;
      // Own fields only: `__proto__` or `constructor` would otherwise reach Object's prototype.
      const key = String(path[depth]);
      current = Object.hasOwn(shape, key) ? shape[key] : undefined;
      depth++;
      if (current === undefined) return undefined;
    } else if (def.type === 'pipe') {
      const pipe = def as z.core.$ZodPipeDef;
      current = pipe.in._zod.def.type === 'transform' ? pipe.out : pipe.in;
    } else if (
      def.type === 'default' ||
      def.type === 'prefault' ||
      def.type === 'optional' ||
      def.type === 'nullable'
    ) {
      current = (def as z.core.$ZodDefaultDef).innerType;
    } else {
      return undefined;
    }
  }
}

/** The plug-in field's two ways to go wrong: not a name nor a mapping, or a mapping without a name. */
function pluginProblem(input: unknown): { field: string; message: string } {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const name = (input as Record<string, unknown>).name;
    return { field: '.name', message: `expected the plug-in's name (a string), got ${describe(name)}` };
  }
  return { field: '', message: `expected a plug-in name or a mapping with 'name', got ${describe(input)}` };
}

/** The value at `path` of the raw input, for messages about unions. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/**
 * Validates `input` against `schema`, filling defaults; throws the first problem as a ConfigError naming `source`
 * and the field. An unknown field comes first, since a misspelled field also leaves its intended value unset.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, source: string): z.output<S> {
  const result = schema.safeParse(input, { error: configErrorMap, reportInput: true });
  if (result.success) return result.data;
  const { issues } = result.error;
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0]!;
  const path = dottedPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const [key] = issue.keys;
    const known = fieldsAt(schema, issue.path);
    const near = closestName(key!, known);
    throw new ConfigError(
      source,
      path === '' ? key! : `${path}.${key}`,
      `unknown field${near === undefined ? '' : ` (did you mean '${near}'?)`}; known: ${known.join(', ')}`,
    );
  }
  if (issue.code === 'invalid_union') {
    // Only plug-in fields are unions (a name or a mapping with a name).
    const problem = pluginProblem(valueAt(input, issue.path));
    throw new ConfigError(source, path + problem.field, problem.message);
  }
  throw new ConfigError(source, path, issue.message);
}
