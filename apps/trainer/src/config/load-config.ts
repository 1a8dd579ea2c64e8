import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError } from './config-error.js';
import { parseWith, sectionShape } from './config-issues.js';
import { renamedFields, renamedNotice, renameOldFields } from './renamed-fields.js';
import { type TrainerConfig, trainerSchema } from './trainer-config.js';

/** Parses YAML text; a syntax error names the source and its line. */
function parseYaml(text: string, source: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true });
  const [error] = document.errors;
  if (error !== undefined) {
    const line = error.linePos?.[0].line;
    throw new ConfigError(
      source,
      line === undefined ? '' : `line ${line}`,
      `invalid YAML: ${error.message.split('\n')[0]}`,
    );
  }
  try {
    return document.toJS() ?? {};
  } catch (error) {
    // yaml throws a ReferenceError when aliases expand beyond its limit (a "billion laughs" document).
    throw new ConfigError(source, '', `invalid YAML: ${(error as Error).message}`);
  }
}

/** True when the dotted `path` names a field of the config (a section or a value). */
function isField(path: string): boolean {
  const parts = path.split('.');
  const parent = sectionShape(trainerSchema, parts.slice(0, -1));
  return parent !== undefined && Object.hasOwn(parent, parts.at(-1)!);
}

/** Where a config's warnings go unless the caller takes them: stderr, as the CLI's other warnings. */
const toStderr = (notice: string): void => {
  process.stderr.write(`warning: ${notice}\n`);
};

/** The field a `path=value` override sets, under its current name. */
function overridePath(assignment: string): string {
  const given = assignment.slice(0, assignment.indexOf('=')).trim();
  return renamedFields[given] ?? given;
}

/**
 * Applies one `path=value` override (the value parsed as a YAML scalar or flow list) to a raw config object; an
 * old field name (renamedFields) sets the new one, with a warning.
 */
function applyOverride(
  raw: Record<string, unknown>,
  assignment: string,
  warn: (notice: string) => void,
): void {
  const source = `--set ${assignment}`;
  const equals = assignment.indexOf('=');
  if (equals <= 0) throw new ConfigError(source, '', "expected 'field.path=value'");
  const given = assignment.slice(0, equals).trim();
  const path = overridePath(assignment);
  if (path !== given) warn(`${source}: ${renamedNotice(given)}`);
  if (!isField(path)) throw new ConfigError(source, path, 'unknown field');
  const value = parseYaml(assignment.slice(equals + 1), source);
  const parts = path.split('.');
  let target = raw;
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (next === undefined || next === null) target[part] = {};
    else if (typeof next !== 'object' || Array.isArray(next))
      throw new ConfigError(source, part, 'is not a mapping');
    target = target[part] as Record<string, unknown>;
  }
  target[parts.at(-1)!] = value;
}

/** True when the dotted `field` is `path` or lies inside it (`rl.loss.name` inside `rl.loss`, `rl.filters[0]`). */
const within = (field: string, path: string) =>
  field === path || field.startsWith(`${path}.`) || field.startsWith(`${path}[`);

/**
 * A config error that names the config `source` for a value an override set, as the override's error: a bad value
 * given with `--set` is the `--set`'s fault, not the file's (the last override of the field, or of a mapping or
 * list holding it, is named). Other errors are returned as they are.
 */
export function blameOverride(error: unknown, source: string, overrides: readonly string[]): unknown {
  if (!(error instanceof ConfigError) || error.source !== source) return error;
  const culprit = overrides.findLast((assignment) => within(error.field, overridePath(assignment)));
  return culprit === undefined ? error : new ConfigError(`--set ${culprit}`, error.field, error.problem);
}

/**
 * Builds a validated config from YAML text plus `--set` overrides; defaults fill every field left out.
 * Errors name the source (file or override) and the field; fields under an old name (renamedFields) are read as
 * the new one, each with a notice to `warn` (default: stderr).
 */
export function parseConfig(
  text: string,
  source: string,
  overrides: readonly string[] = [],
  warn: (notice: string) => void = toStderr,
): TrainerConfig {
  const raw = parseYaml(text, source);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(source, '', 'expected a mapping at the top level');
  }
  const merged = structuredClone(raw) as Record<string, unknown>;
  renameOldFields(merged, source, (notice) => warn(`${source}: ${notice}`));
  for (const assignment of overrides) applyOverride(merged, assignment, warn);
  try {
    return parseWith(trainerSchema, merged, source);
  } catch (error) {
    throw blameOverride(error, source, overrides);
  }
}

/** Reads and validates a YAML config file (see parseConfig). */
export function loadConfig(
  path: string | undefined,
  overrides: readonly string[] = [],
  warn: (notice: string) => void = toStderr,
): TrainerConfig {
  if (path === undefined) return parseConfig('{}', '(defaults)', overrides, warn);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, '', `cannot read config: ${(error as Error).message}`);
  }
  return parseConfig(text, path, overrides, warn);
}
