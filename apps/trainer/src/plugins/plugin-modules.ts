import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { registeringFrom } from '@taorl/plugin-registry';
import { ConfigError } from '../config/config-error.js';
import type { PluginModule } from '../config/plugin-module.js';
import { secondTfjsCopy } from './tfjs-copy.js';

export type { PluginModule };

/** One module to load, and where it was named (for errors and for resolving it). */
export type PluginRequest = {
  module: string;
  /** The config file or `--plugin <module>`, as config errors name their source. */
  source: string;
  /** The field errors name: `plugins[0]`, or `plugin` for the flag. */
  field: string;
} & (
  | {
      /** The folder a relative path or a package name resolves from. */
      from: string;
    }
  | {
      /** The file it resolved to when a run recorded it (run-config.json's `plugins`): imported as it is. */
      file: string;
    }
);

/** The file a request names: resolved from its folder, or the recorded file, which must still be there. */
function requestedFile(request: PluginRequest): string {
  if ('from' in request) return resolvePluginModule(request.module, request.from);
  if (!existsSync(request.file))
    throw new Error(
      `plug-in module '${request.module}' was loaded from ${request.file}, which is missing now`,
    );
  return request.file;
}

/** A plug-in module loaded, with the request that named it: what worker threads need to load it again. */
export interface LoadedPlugin extends PluginModule {
  source: string;
  field: string;
}

/** Every plug-in module this process loaded, in order: the worker threads it starts load the same files. */
const loaded: LoadedPlugin[] = [];
/** The time bound of the last loadPluginModules call, which worker threads load the same files under. */
let loadTimeoutMs = 60_000;

export const loadedPluginModules = (): readonly PluginModule[] =>
  loaded.map(({ module, path }) => ({ module, path }));

/** What worker threads import (loadPluginFiles) to hold the plug-ins this process loaded. */
export const pluginsForWorkers = (): { plugins: readonly LoadedPlugin[]; timeoutMs: number } => ({
  plugins: [...loaded],
  timeoutMs: loadTimeoutMs,
});

const isPath = (module: string) => module.startsWith('.') || isAbsolute(module);

/**
 * The file of an ESM-only package (its `exports` has no `require` or `default` condition, which Node's
 * require-style resolution needs): `exports['.']` under `import` or `node`, from the nearest node_modules.
 */
function importOnlyEntry(module: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', module, 'package.json');
    if (existsSync(manifest)) {
      const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown };
      const root = (
        typeof exports === 'object' && exports !== null && '.' in exports ? exports['.'] : exports
      ) as Record<string, unknown> | undefined;
      const target = root?.import ?? root?.node;
      return typeof target === 'string' ? join(dirname(manifest), target) : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The file `module` names, resolved from the folder `from` as Node resolves a `require` there: a path (relative
 * to `from`, or absolute; a folder by its package.json `main` or index.js) or a package name (its `exports`).
 */
export function resolvePluginModule(module: string, from: string): string {
  const require = createRequire(join(from, 'noop.js'));
  try {
    return require.resolve(isPath(module) ? resolve(from, module) : module);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const entry = code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' ? importOnlyEntry(module, from) : undefined;
    if (entry !== undefined && existsSync(entry)) return entry;
    throw new Error(
      isPath(module)
        ? `cannot find plug-in module '${module}' (looked for ${resolve(from, module)})`
        : `cannot find plug-in package '${module}' from ${from} (is it installed there?)`,
    );
  }
}

/** What a module threw while loading, in words: an Error's message, or the value thrown, which names nothing. */
function thrownProblem(error: unknown): string {
  if (error instanceof Error) return error.message;
  return `it threw ${inspect(error, { depth: 2, breakLength: Number.POSITIVE_INFINITY })}, which is not an Error`;
}

/**
 * Imports `path` in at most `timeoutMs`; rejects with the problem in words when the module throws, calls
 * process.exit while it is evaluated (which would end the command with that code and no run: it throws there
 * instead), or never settles: a top-level await on nothing that can finish is seen at once (the process has
 * nothing left to wait for), one that keeps the process busy when the time is up. A synchronous endless loop in a
 * module cannot be bounded from the same thread.
 */
async function boundedImport(path: string, timeoutMs: number): Promise<void> {
  const exit = process.exit;
  let timer: NodeJS.Timeout | undefined;
  let idle: (() => void) | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `its import did not finish within ${timeoutMs} ms (a top-level await that never settles?); ` +
              'raise pluginLoadTimeoutMs if it needs longer',
          ),
        ),
      timeoutMs,
    );
    // Unreferenced, so that a module waiting on nothing leaves the process idle: 'beforeExit' says so at once.
    timer.unref();
    idle = () =>
      reject(new Error('its import never settles: a top-level await waits on nothing that can finish'));
    process.once('beforeExit', idle);
  });
  process.exit = ((code?: number | string | null) => {
    throw new Error(
      `it called process.exit(${code ?? ''}) while loading; a plug-in module must not end the process`,
    );
  }) as typeof process.exit;
  try {
    await Promise.race([import(pathToFileURL(path).href), bound]);
  } catch (error) {
    throw new Error(thrownProblem(error), { cause: error });
  } finally {
    process.exit = exit;
    clearTimeout(timer);
    if (idle !== undefined) process.off('beforeExit', idle);
  }
}

/** Imports one plug-in module under the time bound; any failure is a ConfigError naming its request and file. */
async function importPlugin(plugin: LoadedPlugin, timeoutMs: number, where = ''): Promise<void> {
  try {
    await registeringFrom(plugin.module, () => boundedImport(plugin.path, timeoutMs));
  } catch (error) {
    throw new ConfigError(
      plugin.source,
      plugin.field,
      `plug-in module '${plugin.module}' (${plugin.path}) failed to load${where}: ${(error as Error).message}`,
    );
  }
}

/** Imports the modules the main thread loaded (pluginsForWorkers), in a worker thread, under the same bound. */
export async function importPluginFiles(plugins: readonly LoadedPlugin[], timeoutMs: number): Promise<void> {
  for (const plugin of plugins) await importPlugin(plugin, timeoutMs, ' in a worker thread');
}

/**
 * Resolves and imports each module in order, so that the plug-ins it registers are selectable by name, and
 * records it for the worker threads and the run folder (a module loaded already is not imported again). A module
 * that cannot be found, throws, exits or does not finish loading within `timeoutMs` is a ConfigError naming the
 * request's source, field and module. A module that would load its own copy of TensorFlow.js is loaded with a
 * warning naming both copies.
 */
export async function loadPluginModules(
  requests: readonly PluginRequest[],
  warn: (notice: string) => void,
  timeoutMs: number,
): Promise<PluginModule[]> {
  loadTimeoutMs = timeoutMs;
  const modules: PluginModule[] = [];
  for (const request of requests) {
    let path: string;
    try {
      path = requestedFile(request);
    } catch (error) {
      throw new ConfigError(request.source, request.field, (error as Error).message);
    }
    const plugin: LoadedPlugin = {
      module: request.module,
      path,
      source: request.source,
      field: request.field,
    };
    modules.push({ module: request.module, path });
    if (loaded.some((known) => known.path === path)) continue;
    const copy = secondTfjsCopy(path);
    if (copy !== null) warn(`plug-in module '${request.module}': ${copy}`);
    await importPlugin(plugin, timeoutMs);
    loaded.push(plugin);
  }
  return modules;
}
