import * as tf from '@tensorflow/tfjs';
import { locateWasmFiles } from './wasm-paths';

/**
 * Where tfjs runs. `node-gpu` and `node` are @tensorflow/tfjs-node-gpu and @tensorflow/tfjs-node (libtensorflow,
 * both register the tfjs backend named `tensorflow`); `wasm` is @tensorflow/tfjs-backend-wasm; `cpu` is the
 * pure-JS backend inside @tensorflow/tfjs.
 */
export type BackendChoice = 'node-gpu' | 'node' | 'wasm' | 'cpu';

/** The fastest-first order tried when no preference is given. */
export const DEFAULT_BACKEND_ORDER: readonly BackendChoice[] = ['node-gpu', 'node', 'wasm', 'cpu'];

export interface InitBackendOptions {
  /**
   * One backend (use exactly that one, or throw) or an ordered list of candidates (the first that starts wins).
   * Defaults to {@link DEFAULT_BACKEND_ORDER}.
   */
  prefer?: BackendChoice | readonly BackendChoice[];
  /**
   * Directory (ending in `/`) or URL prefix holding the tfjs-backend-wasm `.wasm` files. In Node it is found
   * automatically next to the installed @tensorflow/tfjs-backend-wasm; browsers and bundles that move the files
   * must pass it.
   */
  wasmPaths?: string;
}

/** Why one candidate backend was not used. */
export interface BackendAttempt {
  backend: BackendChoice;
  reason: string;
}

export interface BackendReport {
  /** The backend that runs now. */
  backend: BackendChoice;
  /** Its name in tfjs (`tf.getBackend()`): `tensorflow`, `wasm` or `cpu`. */
  tfBackend: string;
  /** The candidates tried before it, with the reason each was skipped. */
  skipped: BackendAttempt[];
}

const NATIVE_PACKAGES: Record<'node-gpu' | 'node', string> = {
  'node-gpu': '@tensorflow/tfjs-node-gpu',
  node: '@tensorflow/tfjs-node',
};

/**
 * Selects and initialises the tfjs backend: tfjs-node-gpu, then tfjs-node, then wasm, then cpu by default. The
 * native packages and the wasm backend are optional peer dependencies, loaded with a dynamic import only when
 * a candidate needs them, so a missing one is skipped (with its reason in the report), never a crash.
 */
export async function initBackend(options: InitBackendOptions = {}): Promise<BackendReport> {
  const candidates = normaliseCandidates(options.prefer);
  const skipped: BackendAttempt[] = [];
  for (const backend of candidates) {
    try {
      const tfBackend = await startBackend(backend, options);
      return { backend, tfBackend, skipped };
    } catch (error) {
      skipped.push({ backend, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  const reasons = skipped.map((attempt) => `${attempt.backend}: ${attempt.reason}`).join('; ');
  throw new Error(`initBackend: no backend could start (tried ${candidates.join(', ')}). ${reasons}`);
}

function normaliseCandidates(prefer: InitBackendOptions['prefer']): readonly BackendChoice[] {
  const list = prefer === undefined ? DEFAULT_BACKEND_ORDER : typeof prefer === 'string' ? [prefer] : prefer;
  if (list.length === 0)
    throw new Error('initBackend: options.prefer is an empty list; name at least one backend');
  for (const name of list) {
    if (!DEFAULT_BACKEND_ORDER.includes(name)) {
      throw new Error(
        `initBackend: options.prefer names unknown backend "${String(name)}"; use one of ${DEFAULT_BACKEND_ORDER.join(', ')}`,
      );
    }
  }
  return list;
}

async function startBackend(backend: BackendChoice, options: InitBackendOptions): Promise<string> {
  if (backend === 'cpu') return activate('cpu');
  if (backend === 'wasm') {
    await registerWasm(options.wasmPaths);
    return activate('wasm');
  }
  await importOptional(NATIVE_PACKAGES[backend]);
  return activate('tensorflow');
}

async function activate(tfName: string): Promise<string> {
  if (tf.findBackendFactory(tfName) === null) throw new Error(`tfjs has no backend "${tfName}" registered`);
  const started = await tf.setBackend(tfName);
  if (!started) throw new Error(`tfjs backend "${tfName}" failed to initialise`);
  await tf.ready();
  return tf.getBackend();
}

async function registerWasm(wasmPaths: string | undefined): Promise<void> {
  const wasm = await importOptional('@tensorflow/tfjs-backend-wasm');
  const setWasmPaths = (wasm as { setWasmPaths?: (prefix: string) => void }).setWasmPaths;
  if (typeof setWasmPaths !== 'function')
    throw new Error('@tensorflow/tfjs-backend-wasm exports no setWasmPaths');
  // The paths are read once, when the backend first initialises; setting them later would throw in tfjs.
  if (tf.findBackend('wasm') !== null) return;
  const prefix = wasmPaths ?? (await locateWasmFiles());
  if (prefix !== undefined) setWasmPaths(prefix);
}

/**
 * Imports a package that may be absent. The specifier is held in a variable so that neither TypeScript nor the
 * bundler tries to resolve it at build time: these packages are optional peers, not dependencies.
 */
async function importOptional(specifier: string): Promise<unknown> {
  try {
    return await import(/* @vite-ignore */ specifier);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(`${specifier} is not installed`);
    }
    throw new Error(`${specifier} failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
}
