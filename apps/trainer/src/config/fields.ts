/**
 * The field kinds of the trainer's config, as zod schemas: each carries its doc (the JSON Schema's description)
 * and its default, and sections refuse unknown fields. The messages of a failed check are written in
 * config-issues.ts, so that every field kind reads the same in an error.
 */
import { z } from 'zod';
import { describe } from './config-issues.js';
import { isHttpUrl } from './http-url.js';

/** A plug-in chosen by name, with the options the plug-in itself validates. */
export interface PluginSpec {
  name: string;
  options: Record<string, unknown>;
}

interface NumberBounds {
  /** Inclusive lower bound. */
  readonly min?: number;
  /** Exclusive lower bound (e.g. a learning rate must be > 0). */
  readonly above?: number;
  readonly max?: number;
}

/** Fields whose default depends on the machine (the cores available): the JSON Schema leaves their default out. */
export const machineDependentDefaults = new WeakSet<object>();

/** Fields holding a plug-in or a list of plug-ins, which a config file writes as `{ name, ...options }`. */
export const pluginFields = new WeakSet<object>();

function bounded(schema: z.ZodNumber, { min, above, max }: NumberBounds): z.ZodNumber {
  let bounded = schema;
  if (min !== undefined) bounded = bounded.min(min);
  if (above !== undefined) bounded = bounded.gt(above);
  if (max !== undefined) bounded = bounded.max(max);
  return bounded;
}

/** A finite number. */
export const num = (doc: string, value: number, bounds: NumberBounds = {}) =>
  bounded(z.number(), bounds).default(value).describe(doc);

/**
 * An integer, at most 2^53 - 1: above that integers are no longer exact, and sizes that large end in a RangeError
 * deep inside a run. `value` may be a function for a default that depends on the machine.
 */
export const int = (doc: string, value: number | (() => number), bounds: NumberBounds = {}) => {
  const integer = bounded(z.number().int(), bounds);
  if (typeof value === 'number') return integer.default(value).describe(doc);
  const field = integer.default(value).describe(doc);
  machineDependentDefaults.add(field);
  return field;
};

/** One of a closed set of strings (plug-in names are open sets, checked by their registries). */
export const oneOf = <const T extends readonly [string, ...string[]]>(
  doc: string,
  value: T[number],
  values: T,
) => z.enum(values).default(value).describe(doc);

/** A string that must not be empty, such as a folder: '' would silently mean the working directory. */
export const nonEmptyStr = (doc: string, value: string) =>
  z.string().min(1, { error: 'must not be empty' }).default(value).describe(doc);

/** A string that may be left out (or null); when given it must not be empty (each names a path or a model). */
export const optionalStr = (doc: string) =>
  z
    .string()
    .min(1, { error: 'must not be empty (leave the field out, or null, for the default)' })
    .nullish()
    .transform((value) => value ?? undefined)
    .describe(doc);

export const bool = (doc: string, value: boolean) => z.boolean().default(value).describe(doc);

/** "expected a list of <items>, got ..." for a value that is no list; other problems keep their own message. */
const listError =
  (items: string): z.core.$ZodErrorMap =>
  (issue) =>
    issue.code === 'invalid_type' ? `expected a list of ${items}, got ${describe(issue.input)}` : undefined;

const httpUrl = z.string().refine(isHttpUrl, {
  error: (issue) =>
    `expected an http(s) URL such as http://10.0.0.5:8000, got ${JSON.stringify(issue.input)}`,
});

/** A list of http(s) URLs with a host; in YAML a sequence, or one string for a list of one (keeps `--set` short). */
export const httpUrlList = (doc: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z.array(httpUrl, { error: listError('strings') }).default([]),
    )
    .describe(doc);

/** Modules to import (paths or package names); in YAML a sequence, or one string for a list of one. */
export const moduleList = (doc: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z
        .array(z.string().min(1, { error: 'must not be empty' }), {
          error: listError('module paths or package names'),
        })
        .default([]),
    )
    .describe(doc);

/**
 * A plug-in: in YAML either a bare name (`grpo`) or a mapping with `name` and the plug-in's options
 * (`{ name: tao, alpha: 0.2 }`). The plug-in checks its options when the run is assembled (docs/plug-ins.md).
 */
const pluginSpec = z
  .union([
    z.string().min(1, {
      error: (issue) => `expected a plug-in name or a mapping with 'name', got ${describe(issue.input)}`,
    }),
    z.looseObject({
      name: z.string().min(1, {
        error: (issue) => `expected the plug-in's name (a string), got ${describe(issue.input)}`,
      }),
    }),
  ])
  .transform((value): PluginSpec => {
    if (typeof value === 'string') return { name: value, options: {} };
    const { name, ...options } = value;
    return { name, options };
  });

export const plugin = (doc: string, name: string) => {
  const field = pluginSpec.prefault(name).describe(doc);
  pluginFields.add(field);
  return field;
};

/** An ordered list of plug-ins (e.g. filters), each written as for `plugin`. */
export const pluginList = (doc: string, names: readonly string[]) => {
  const field = z
    .array(pluginSpec, { error: listError('plug-ins') })
    .prefault([...names])
    .describe(doc);
  pluginFields.add(field);
  return field;
};

/** A mapping of fields; left out or null, every field takes its default. Unknown fields are errors. */
export const section = <S extends z.ZodRawShape>(doc: string, fields: S) => {
  const mapping = z.strictObject(fields);
  // Every field has a default (or may be left out), so the empty mapping is a valid input.
  return z
    .preprocess((value) => value ?? undefined, mapping.prefault({} as z.input<typeof mapping>))
    .describe(doc);
};
