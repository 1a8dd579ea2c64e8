import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** Every plug-in module this process loaded, in order: the worker threads it starts load the same files. */
const loaded: PluginModule[] = [];

export const loadedPluginModules = (): readonly PluginModule[] => [...loaded];

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

/** Imports files already resolved (a worker thread loading what its main thread loaded). */
export async function importPluginFiles(paths: readonly string[]): Promise<void> {
  for (const path of paths) await import(pathToFileURL(path).href);
}

/**
 * Resolves and imports each module in order, so that the plug-ins it registers are selectable by name, and
 * records it for the worker threads and the run folder (a module loaded already is not imported again). A module
 * that cannot be found or throws while loading is a ConfigError naming the request's source, field and module.
 * A module that would load its own copy of TensorFlow.js is loaded with a warning naming both copies.
 */
export async function loadPluginModules(
  requests: readonly PluginRequest[],
  warn: (notice: string) => void,
): Promise<PluginModule[]> {
  const modules: PluginModule[] = [];
  for (const request of requests) {
    let path: string;
    try {
      path = requestedFile(request);
    } catch (error) {
      throw new ConfigError(request.source, request.field, (error as Error).message);
    }
    const plugin = { module: request.module, path };
    modules.push(plugin);
    if (loaded.some((known) => known.path === path)) continue;
    const copy = secondTfjsCopy(path);
    if (copy !== null) warn(`plug-in module '${request.module}': ${copy}`);
    try {
      await import(pathToFileURL(path).href);
    } catch (error) {
      throw new ConfigError(
        request.source,
        request.field,
        `plug-in module '${request.module}' (${path}) failed to load: ${(error as Error).message}`,
      );
    }
    loaded.push(plugin);
  }
  return modules;
}
