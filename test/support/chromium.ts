import { existsSync } from 'node:fs';

/**
 * Where a Chromium binary may be: Debian's package (scripts/setup.sh installs it, and .ci/run runs setup.sh) and
 * the other common names. playwright-core drives it; it downloads no browser of its own.
 */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The first Chromium binary found, or null. */
export function findChromium(): string | null {
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/** Headless, and off the (closed) network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, in words that say how to fix it. */
export const NO_CHROMIUM = `no Chromium binary at ${CANDIDATES.join(', ')}: run 'bash scripts/setup.sh' (it installs Debian's chromium)`;

/**
 * The Chromium binary for a browser test, or null where this machine has none (the test then skips, saying why).
 * CI must run every browser test, so there a missing binary fails the file, naming the test.
 */
export function chromiumForTest(test: string): string | null {
  const executablePath = findChromium();
  if (executablePath === null && process.env.CI) throw new Error(`CI must run ${test}: ${NO_CHROMIUM}`);
  return executablePath;
}
