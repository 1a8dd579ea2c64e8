import { beforeAll } from 'vitest';
import { type BackendChoice, initBackend } from '../../src/index';

/** The backends every numeric test runs on: the pure-JS reference and the wasm backend the trainer uses. */
export const TEST_BACKENDS: readonly BackendChoice[] = ['cpu', 'wasm'];

/** Switches tfjs to `backend` before the tests of the enclosing describe block. */
export function useBackend(backend: BackendChoice): void {
  beforeAll(async () => {
    await initBackend({ prefer: backend });
  });
}
