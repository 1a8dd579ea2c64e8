// The oldest Node a package's `engines` allows, and a binary of it: npm publishes each release's binaries as
// node-<platform>-<arch> packages, so the check needs only the npm registry, and caches the binary in
// node_modules/.cache (a fresh CI machine installs it once).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** '>=20.11' -> '20.11.0'. Other ranges are refused rather than guessed at. */
export function oldestNodeVersion(manifest) {
  const range = manifest.engines?.node;
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? '');
  if (!match) {
    throw new Error(
      `${manifest.name}: engines.node must read ">=X.Y[.Z]" to name its oldest Node (got ${range})`,
    );
  }
  return `${match[1]}.${match[2] ?? 0}.${match[3] ?? 0}`;
}

/** The path of a Node `version` binary, installed from the npm registry into `cacheDir` unless already there. */
export function installNode(version, cacheDir) {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const name = `node-${platform}-${process.arch}`;
  const prefix = join(cacheDir, version);
  const binary = join(
    prefix,
    'node_modules',
    name,
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (!existsSync(binary)) {
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        `${name}@${version}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const reported = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (reported !== `v${version}`) throw new Error(`${binary} reports ${reported}, expected v${version}`);
  return binary;
}
