/**
 * The one plug-in registry contract of taorl (docs/plug-ins.md), bundled into each package that has plug-ins.
 * One file, because the packages' declaration builds inline it (see tsup.base.ts).
 */

/**
 * The part of the Standard Schema interface (standardschema.dev, v1) that a registry calls. zod (3.24 and later),
 * valibot and arktype schemas implement it, so a plug-in's options schema can come from any of them without this
 * module depending on one.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Edit distance (insertions, deletions, substitutions; case differences cost nothing). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[y.length] as number;
}

/**
 * The known name closest to `name`, when it is close enough to be a typo (at most a third of its letters, and at
 * least one, differ); otherwise undefined.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const [closest] = known
    .map((candidate) => ({ candidate, cost: distance(name, candidate) }))
    .filter(({ cost }) => cost <= Math.max(1, Math.floor(name.length / 3)))
    .sort((a, b) => a.cost - b.cost);
  return closest?.candidate;
}

/** ` (did you mean "x"?)` when a known name is close to `name`, else ''. */
export function didYouMean(name: string, known: readonly string[]): string {
  const closest = closestName(name, known);
  return closest === undefined ? '' : ` (did you mean ${JSON.stringify(closest)}?)`;
}

/** A plug-in's options as a config file or a caller gives them, before the plug-in has checked them. */
export type RawOptions = Readonly<Record<string, unknown>>;

/**
 * How a plug-in checks its options: a Standard Schema (a zod schema, for instance), whose issues the registry
 * reports with the option's path, or a function that returns the checked options and throws an Error naming the
 * bad option.
 */
export type OptionsSchema<O> = StandardSchemaV1<unknown, O> | ((options: RawOptions) => O);

export interface RegisterOptions {
  /** Replace the plug-in registered under the same name; without it a second registration is an error. */
  readonly replace?: boolean;
}

export interface RegisterWithSchema<O> extends RegisterOptions {
  /** Checks the options before the factory sees them; the factory gets what it returns. */
  readonly schema: OptionsSchema<O>;
}

/**
 * A table of the plug-ins of one kind (filters, estimators, ...) selected by name, e.g. from a config file.
 * Its entries live on `globalThis` under `Symbol.for('taorl.<package>.<kind>')`, so the ESM and the CommonJS
 * build of one package loaded in the same process share them.
 */
export interface Registry<T> {
  /** What the plug-ins are, for messages: 'filter', 'advantage estimator'. */
  readonly kind: string;
  /** A factory that checks its own options (it gets them as given). */
  register(name: string, factory: (options: RawOptions) => T, options?: RegisterOptions): void;
  /** A factory whose options `schema` checks first. */
  register<O>(name: string, factory: (options: O) => T, options: RegisterWithSchema<O>): void;
  /**
   * The package's own plug-ins, registered where each is defined: registered unless the name is taken already,
   * which happens when the other build of the package (ESM or CommonJS) registered them first, or when a user
   * replaced one before this build loaded.
   */
  registerBuiltIn<O>(name: string, factory: (options: O) => T, schema?: OptionsSchema<O>): void;
  /** Builds the plug-in `name` with `options`; an unknown name or a bad option throws an Error naming it. */
  create(name: string, options?: RawOptions): T;
  /** Checks `options` as create would, without building the plug-in. */
  checkOptions(name: string, options?: RawOptions): void;
  has(name: string): boolean;
  /** The registered names, in registration order. */
  names(): string[];
}

interface Entry {
  readonly factory: (options: never) => unknown;
  readonly schema: OptionsSchema<unknown> | undefined;
  /** The plug-in module whose import registered it (registeringFrom), for messages; undefined for others. */
  readonly origin: string | undefined;
}

/**
 * What a plug-in of a registry's kind must be, checked on what each factory builds, so that a factory of the wrong
 * shape fails where it is created, naming the plug-in, rather than deep inside a run (`x.estimate is not a
 * function`).
 */
export interface PluginShape {
  /** The plug-in is itself a function (a policy loss). */
  readonly callable?: boolean;
  /** Methods the plug-in object must have. */
  readonly methods?: readonly string[];
}

/** Where the plug-in module being imported now is named, shared by every bundled copy of this file. */
const ORIGIN = Symbol.for('taorl.plugin-registry.origin');

/**
 * Runs `load`, the import of the plug-in module `module` (as its config or flag names it), so that the plug-ins
 * it registers meanwhile are named with it in messages. Imports are not to overlap: the trainer loads its plug-in
 * modules one after another.
 */
export async function registeringFrom<T>(module: string, load: () => Promise<T>): Promise<T> {
  const global = globalThis as unknown as Record<symbol, string | undefined>;
  const previous = global[ORIGIN];
  global[ORIGIN] = module;
  try {
    return await load();
  } finally {
    global[ORIGIN] = previous;
  }
}

const currentOrigin = (): string | undefined =>
  (globalThis as unknown as Record<symbol, string | undefined>)[ORIGIN];

/** What a value is, for a message about a plug-in of the wrong shape. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What is wrong with `made` as a plug-in of `shape`, or undefined when nothing is. */
function shapeProblem(made: unknown, shape: PluginShape): string | undefined {
  if (shape.callable === true) {
    return typeof made === 'function' ? undefined : `expected a function, got ${describeValue(made)}`;
  }
  const methods = shape.methods ?? [];
  if (methods.length === 0) return undefined;
  if ((typeof made !== 'object' && typeof made !== 'function') || made === null) {
    return `expected an object with ${methods.join(', ')}(), got ${describeValue(made)}`;
  }
  const missing = methods.filter((method) => typeof (made as Record<string, unknown>)[method] !== 'function');
  return missing.length === 0 ? undefined : `the object it built has no method ${missing.join('(), ')}()`;
}

/** The layout of the shared entries; bumped if it ever changes, so that two layouts never mix silently. */
const STORE_VERSION = 1;

interface Store {
  readonly version: number;
  readonly entries: Map<string, Entry>;
}

function sharedStore(key: symbol): Store {
  const global = globalThis as unknown as Record<symbol, Store | undefined>;
  const existing = global[key];
  if (existing === undefined) {
    const store: Store = { version: STORE_VERSION, entries: new Map() };
    global[key] = store;
    return store;
  }
  if (existing.version !== STORE_VERSION) {
    throw new Error(
      `${String(key.description)}: a registry of layout ${existing.version} is loaded already, this build ` +
        `uses layout ${STORE_VERSION}; load one version of the package per process`,
    );
  }
  return existing;
}

function isStandardSchema<O>(schema: OptionsSchema<O>): schema is StandardSchemaV1<unknown, O> {
  return typeof schema === 'object' && schema !== null && '~standard' in schema;
}

function issueKeys(issue: StandardSchemaIssue): string[] {
  return (issue.path ?? []).map((part) =>
    typeof part === 'object' && part !== null ? String(part.key) : String(part),
  );
}

function issuePath(issue: StandardSchemaIssue): string {
  const keys = issueKeys(issue);
  return keys.length === 0 ? '' : `option '${keys.join('.')}': `;
}

/**
 * The field names of the object schema at `path` inside `schema`, read from a zod object's `shape` (or a valibot
 * object's `entries`); [] when the schema does not show them. Standard Schema has no way to list fields.
 */
function knownOptions(schema: unknown, path: readonly string[]): string[] {
  let fields = fieldsOf(schema);
  for (const key of path) fields = fieldsOf(fields?.[key]);
  return Object.keys(fields ?? {});
}

/** The fields of an object schema, looking through optional, nullable and default wrappers (zod, valibot). */
function fieldsOf(schema: unknown): Record<string, unknown> | undefined {
  let current = schema;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const { shape, entries, unwrap, wrapped } = current as {
      shape?: unknown;
      entries?: unknown;
      unwrap?: unknown;
      wrapped?: unknown;
    };
    const fields = shape ?? entries;
    if (typeof fields === 'object' && fields !== null) return fields as Record<string, unknown>;
    current = typeof unwrap === 'function' ? (unwrap as () => unknown).call(current) : wrapped;
  }
  return undefined;
}

/**
 * One problem of a schema's check, in the registry's words. A strict object's unknown key (zod's
 * `unrecognized_keys` issue) reads as the built-ins' own checks do: the option, the closest known one when it is
 * a likely typo, and the known ones.
 */
function describeIssue(issue: StandardSchemaIssue, schema: StandardSchemaV1<unknown, unknown>): string {
  const { code, keys } = issue as { code?: unknown; keys?: unknown };
  if (code !== 'unrecognized_keys' || !Array.isArray(keys)) return `${issuePath(issue)}${issue.message}`;
  const parent = issueKeys(issue);
  const known = knownOptions(schema, parent);
  return keys
    .map((key) => {
      const option = [...parent, String(key)].join('.');
      const listed = known.length === 0 ? '' : `; known: ${known.join(', ')}`;
      return `unknown option '${option}'${didYouMean(String(key), known)}${listed}`;
    })
    .join('; ');
}

/** How a message names a plug-in: its kind and its name, `filter "tool-aware"`. */
function pluginLabel(kind: string, name: string): string {
  return `${kind} ${JSON.stringify(name)}`;
}

/**
 * Runs `build` (a plug-in's options check or its factory); what it throws is rethrown as a problem of the plug-in,
 * its message led by the plug-in's label. A message led by the label already is kept; one led by the plug-in's
 * bare name (a built-in naming itself, `tool-aware: unknown option 'x'`, as it does when called directly) gets the
 * label in its place. TypeError and RangeError keep their class; the original error is the cause.
 */
function namingPlugin<T>(kind: string, name: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    const label = pluginLabel(kind, name);
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith(`${label}: `)) throw error;
    const problem = message.startsWith(`${name}: `) ? message.slice(name.length + 2) : message;
    const Kind = error instanceof TypeError ? TypeError : error instanceof RangeError ? RangeError : Error;
    throw new Kind(`${label}: ${problem}`, { cause: error });
  }
}

/**
 * The `code` of the error a registry throws for a name nothing registered, so that a caller can add how plug-ins
 * get registered where it loads them (the trainer names `plugins:` and `--plugin`).
 */
export const UNKNOWN_PLUGIN = 'ERR_TAORL_UNKNOWN_PLUGIN';

/**
 * The registry of one plug-in kind of one package. `packageName` and `kind` make the shared key
 * (`taorl.filter.filter`); `kind` also names the plug-ins in messages.
 */
export function createRegistry<T>(packageName: string, kind: string, shape: PluginShape = {}): Registry<T> {
  const key = Symbol.for(`taorl.${packageName}.${kind.replaceAll(' ', '-')}`);
  const entries = (): Map<string, Entry> => sharedStore(key).entries;

  const entryOf = (name: string): Entry => {
    const entry = entries().get(name);
    if (entry === undefined) {
      const known = [...entries().keys()];
      throw Object.assign(
        new Error(
          `unknown ${kind} ${JSON.stringify(name)}${didYouMean(name, known)}; registered: ${known.join(', ')}`,
        ),
        { code: UNKNOWN_PLUGIN },
      );
    }
    return entry;
  };

  const checked = (name: string, entry: Entry, options: RawOptions): unknown => {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new TypeError(`${pluginLabel(kind, name)}: options must be an object`);
    }
    const { schema } = entry;
    if (schema === undefined) return options;
    if (!isStandardSchema(schema)) return namingPlugin(kind, name, () => schema(options));
    const result = schema['~standard'].validate(options);
    if (result instanceof Promise) {
      throw new TypeError(
        `${pluginLabel(kind, name)}: its options schema is asynchronous, which a registry cannot use`,
      );
    }
    if (result.issues !== undefined) {
      const problems = result.issues.map((issue) => describeIssue(issue, schema));
      throw new Error(`${pluginLabel(kind, name)}: ${problems.join('; ')}`);
    }
    return result.value;
  };

  const checkName = (name: unknown): void => {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`a ${kind} needs a non-empty name, got ${JSON.stringify(name)}`);
    }
  };

  return {
    kind,
    register(
      name: string,
      factory: (options: never) => T,
      options: Partial<RegisterWithSchema<unknown>> = {},
    ) {
      checkName(name);
      if (typeof factory !== 'function') {
        throw new TypeError(`${pluginLabel(kind, name)}: the factory must be a function`);
      }
      if (entries().has(name) && options.replace !== true) {
        throw new Error(
          `${pluginLabel(kind, name)} is already registered; pass { replace: true } to replace it`,
        );
      }
      entries().set(name, { factory, schema: options.schema, origin: currentOrigin() });
    },
    registerBuiltIn(name, factory, schema) {
      checkName(name);
      if (!entries().has(name)) {
        entries().set(name, { factory, schema: schema as OptionsSchema<unknown>, origin: currentOrigin() });
      }
    },
    create(name, options = {}) {
      const entry = entryOf(name);
      const checkedOptions = checked(name, entry, options);
      // A factory without a schema checks its options itself, so what it throws names the plug-in too.
      const made = namingPlugin(kind, name, () => (entry.factory as (options: unknown) => T)(checkedOptions));
      const problem = shapeProblem(made, shape);
      if (problem !== undefined) {
        const from = entry.origin === undefined ? '' : ` (registered by plug-in module '${entry.origin}')`;
        throw new TypeError(
          `${pluginLabel(kind, name)}${from}: its factory is of the wrong shape: ${problem}`,
        );
      }
      return made;
    },
    checkOptions(name, options = {}) {
      checked(name, entryOf(name), options);
    },
    has: (name) => entries().has(name),
    names: () => [...entries().keys()],
  };
}

/**
 * The `register<Kind>` function a package exports for `registry` (registerFilter, registerPolicyLoss, ...): the
 * registry's own two `register` signatures. Leave the exported const's type to inference (no annotation): its
 * declaration then spells both signatures out for the API report, and `@function` in its doc comment has the API
 * reference show them as a function's.
 */
export function registerFunction<T>(registry: Registry<T>): Registry<T>['register'] {
  return registry.register.bind(registry);
}

/** The schema of a plug-in that takes no options: any option is an error (the registry names the plug-in). */
export function noOptions(options: RawOptions): Record<string, never> {
  const [first] = Object.keys(options);
  if (first !== undefined) throw new Error(`takes no options, got '${first}'`);
  return {};
}
