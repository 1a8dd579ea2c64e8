import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { writeTestAsset } from './test-asset';

const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

export interface TestSite {
  /** The temporary folder that holds the site and the asset's saved policy; removed by `close`. */
  work: string;
  /** The built site (`vite build`'s output), with the test asset in its policy/ folder. */
  site: string;
  /** Where `vite preview` serves the site, with the isolation headers a static host is told to send. */
  origin: string;
  close(): Promise<void>;
}

/**
 * The playground as a static host serves it: built into a fresh temporary folder, with writeTestAsset's asset
 * (`prompts`, `overrides`) in it, and served by `vite preview`.
 */
export async function serveTestSite(
  name: string,
  prompts?: number,
  overrides?: readonly string[],
): Promise<TestSite> {
  const work = mkdtempSync(join(tmpdir(), `taorl-playground-${name}-`));
  const site = join(work, 'site');
  try {
    await build({ configFile, logLevel: 'silent', build: { outDir: site, emptyOutDir: true } });
    await writeTestAsset(site, work, prompts, overrides);
    const server = await preview({
      configFile,
      logLevel: 'silent',
      build: { outDir: site },
      preview: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    return {
      work,
      site,
      origin: server.resolvedUrls?.local[0] ?? '',
      async close() {
        await new Promise((resolve) => server.httpServer.close(resolve));
        rmSync(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}
