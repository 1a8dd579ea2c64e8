import { readFileSync } from 'node:fs';
import { closestName } from '@taorl/plugin-registry';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { isMapping } from './config-file-form.js';
import { parseWith, sectionShape } from './config-issues.js';
import { pluginFields } from './fields.js';
import type { PluginModule } from './plugin-module.js';
import { renamedFields, renamedNotice, renameOldFields } from './renamed-fields.js';
import { isRunRecord, runRecordOf } from './run-record.js';
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
    return document.toJS();
  } catch (error) {
    // yaml throws a ReferenceError when aliases expand beyond its limit (a "billion laughs" document).
    throw new ConfigError(source, '', `invalid YAML: ${(error as Error).message}`);
  }
}

/**
 * The plug-in field (a single plug-in, not a list) whose option the dotted `path` names: `rl.loss` for
 * `rl.loss.clipHigh`. The plug-in checks its own options when the run is assembled, so any option name is taken.
 */
function pluginOwning(path: string): { path: string[]; defaultName: string } | undefined {
  const parts = path.split('.');
  if (parts.length < 2) return undefined;
  const field = sectionShape(trainerSchema, parts.slice(0, -2))?.[parts.at(-2)!];
  if (field === undefined || !pluginFields.has(field)) return undefined;
  const unset: unknown = z.parse(field, undefined);
  if (!isMapping(unset) || typeof unset.name !== 'string') return undefined;
  return { path: parts.slice(0, -1), defaultName: unset.name };
}

/** Refuses a dotted `path` that names no field of the config, with the closest field's name. */
function checkField(path: string, source: string): void {
  if (pluginOwning(path) !== undefined) return;
  const parts = path.split('.');
  const parent = sectionShape(trainerSchema, parts.slice(0, -1));
  if (parent !== undefined && Object.hasOwn(parent, parts.at(-1)!)) return;
  const near = parent === undefined ? undefined : closestName(parts.at(-1)!, Object.keys(parent));
  const hint = near === undefined ? '' : ` (did you mean '${[...parts.slice(0, -1), near].join('.')}'?)`;
  throw new ConfigError(source, path, `unknown field${hint}`);
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
  checkField(path, source);
  const value = parseYaml(assignment.slice(equals + 1), source);
  const parts = path.split('.');
  const owner = pluginOwning(path);
  if (owner !== undefined) namePlugin(raw, owner.path, owner.defaultName);
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

/**
 * Writes the plug-in at `path` as a mapping with its name (`rl.loss: vanilla` becomes `{name: vanilla}`, an
 * unset one takes the field's default name), so that an override can set one of its options.
 */
function namePlugin(raw: Record<string, unknown>, path: readonly string[], defaultName: string): void {
  let target = raw;
  for (const part of path.slice(0, -1)) {
    if (target[part] === undefined || target[part] === null) target[part] = {};
    if (!isMapping(target[part])) return; // applyOverride refuses it, naming the field
    target = target[part];
  }
  const key = path.at(-1)!;
  const current = target[key];
  if (typeof current === 'string') target[key] = { name: current };
  else if (current === undefined || current === null) target[key] = { name: defaultName };
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

/** A config read from a config file or from a run's run-config.json. */
export interface LoadedConfig {
  config: TrainerConfig;
  /**
   * For a run record: the plug-in modules its run loaded, with their files (the files are loaded again, since
   * the record's folder is not the one its `plugins` were resolved from); null for a config file.
   */
  recordedPlugins: PluginModule[] | null;
}

/** parseConfig, with the plug-in modules of a run record. */
function parseText(
  text: string,
  source: string,
  overrides: readonly string[],
  warn: (notice: string) => void,
): LoadedConfig {
  // An empty file is an empty mapping: every field defaulted.
  const raw = parseYaml(text, source) ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(source, '', 'expected a mapping at the top level');
  }
  const notice = (text: string) => warn(`${source}: ${text}`);
  const record = isRunRecord(raw as Record<string, unknown>)
    ? runRecordOf(raw as Record<string, unknown>, source, notice)
    : null;
  let merged: Record<string, unknown>;
  if (record === null) {
    merged = structuredClone(raw) as Record<string, unknown>;
    renameOldFields(merged, source, notice);
  } else merged = record.config;
  for (const assignment of overrides) applyOverride(merged, assignment, warn);
  try {
    return {
      config: parseWith(trainerSchema, merged, source),
      recordedPlugins: record === null ? null : (record.plugins ?? []),
    };
  } catch (error) {
    const blamed = blameOverride(error, source, overrides);
    if (record === null || !(blamed instanceof ConfigError) || blamed.source !== source) throw blamed;
    throw new ConfigError(source, blamed.field === '' ? 'config' : `config.${blamed.field}`, blamed.problem);
  }
}

/**
 * Builds a validated config from YAML text (or JSON) plus `--set` overrides; defaults fill every field left out.
 * The text may be a config or a run record (`<outDir>/run-config.json`, whose `config` is then read, any version).
 * Errors name the source (file or override) and the field (`config.<field>` inside a record); fields under an old
 * name (renamedFields) are read as the new one, each with a notice to `warn` (default: stderr).
 */
export function parseConfig(
  text: string,
  source: string,
  overrides: readonly string[] = [],
  warn: (notice: string) => void = toStderr,
): TrainerConfig {
  return parseText(text, source, overrides, warn).config;
}

/** Reads and validates a YAML config file or a run's run-config.json (see parseConfig). */
export function readConfigFile(
  path: string | undefined,
  overrides: readonly string[] = [],
  warn: (notice: string) => void = toStderr,
): LoadedConfig {
  if (path === undefined) return parseText('{}', '(defaults)', overrides, warn);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, '', `cannot read config: ${(error as Error).message}`);
  }
  return parseText(text, path, overrides, warn);
}

/** Reads and validates a YAML config file or a run's run-config.json: `readConfigFile`'s config. */
export function loadConfig(
  path: string | undefined,
  overrides: readonly string[] = [],
  warn: (notice: string) => void = toStderr,
): TrainerConfig {
  return readConfigFile(path, overrides, warn).config;
}
