import { describe, expect, it } from 'vitest';
import { resolveBrowserPyodideOptions } from '../src/pyodide/browser-options';

// The browser pyodide backend's options, checked without a browser (pyodide-browser.test.ts runs the backend).
describe('the browser pyodide options', () => {
  it("resolves indexURL against the page's address, ending it with a slash", () => {
    const options = resolveBrowserPyodideOptions(
      { backend: 'pyodide', indexURL: 'assets/pyodide' },
      'http://x.test/app/',
    );
    expect(options).toMatchObject({
      indexURL: 'http://x.test/app/assets/pyodide/',
      workers: 2,
      packages: [],
      preload: [],
      startupTimeoutMs: 120_000,
    });
  });

  it('refuses a relative indexURL where there is no page to resolve it against, naming the field', () => {
    expect(() => resolveBrowserPyodideOptions({ backend: 'pyodide', indexURL: '/pyodide/' }, '')).toThrow(
      'indexURL must be a URL, absolute where the code runs outside a page, got "/pyodide/"',
    );
  });

  it('refuses bad preloads and workers, naming the field', () => {
    const base = 'http://x.test/';
    expect(() =>
      resolveBrowserPyodideOptions({ backend: 'pyodide', indexURL: '/p/', preload: ['os; import x'] }, base),
    ).toThrow(/preload must be an array of module names/);
    expect(() =>
      resolveBrowserPyodideOptions({ backend: 'pyodide', indexURL: '/p/', workers: 0 }, base),
    ).toThrow(/workers must be a positive integer, got 0/);
  });
});
