import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// shims: the CJS build gets an import.meta.url, which locateWasmFiles resolves the wasm backend from.
export default defineConfig(packageBuild({ shims: true }));
