/**
 * The directory of @tensorflow/tfjs-backend-wasm's `.wasm` files as a path prefix ending in the separator, or
 * undefined outside Node. tfjs's own Node bundle finds them through its `__dirname`, which breaks as soon as an
 * application bundles it; resolving the package from this module works in the ESM and the CJS build alike
 * (tsup's shims give the CJS build an `import.meta.url`).
 */
export async function locateWasmFiles(): Promise<string | undefined> {
  if (typeof process === 'undefined' || process.versions?.node === undefined) return undefined;
  // Named through variables, so that a bundler for the browser, where this line never runs, leaves them unresolved
  // instead of refusing the bundle (@taorl/model's portable entry brings this module into pages).
  const [nodeModule, nodePath] = ['node:module', 'node:path'];
  const [{ createRequire }, { dirname, sep }] = await Promise.all([
    import(/* @vite-ignore */ nodeModule) as Promise<typeof import('node:module')>,
    import(/* @vite-ignore */ nodePath) as Promise<typeof import('node:path')>,
  ]);
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + sep;
}
