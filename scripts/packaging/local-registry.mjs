// A throwaway npm registry for the packaging check: verdaccio (scripts/packaging/registry-server.mjs) in a child
// process, storing in a temporary folder, with one user logged in as `npm login` would log in, and the .npmrc a
// maintainer's release reads (docs/CONTRIBUTING.md, Release).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./registry-server.mjs', import.meta.url));

/**
 * Starts the registry with its storage in `folder` and logs a user in. Returns its URL, the .npmrc (registry and
 * token) that points npm and pnpm at it, the environment a release through it runs with, and `close`.
 */
export async function startLocalRegistry(folder) {
  const child = spawn(process.execPath, [SERVER, folder], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolveUrl, reject) => {
    const collect = (chunk) => {
      output += chunk.toString();
      const match = /local registry listening on (http:\/\/\S+)/.exec(output);
      if (match) resolveUrl(match[1]);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`the local registry exited with ${code}: ${output}`)));
  });
  const close = () => child.kill('SIGTERM');
  try {
    // What `npm login` does against a registry with its own users: create the user, receive a token.
    const user = 'taorl-release-check';
    const response = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: 'local-registry-only' }),
    });
    const { token } = await response.json();
    if (!response.ok || typeof token !== 'string')
      throw new Error(`login at ${url} failed: ${response.status}`);
    const npmrc = join(folder, 'npmrc');
    writeFileSync(npmrc, `registry=${url}\n//${new URL(url).host}/:_authToken=${token}\n`);
    // npm and pnpm read the .npmrc named by npm_config_userconfig; changesets reads npm_config_registry.
    const releaseEnv = { ...process.env, npm_config_registry: url, npm_config_userconfig: npmrc };
    return { url, npmrc, releaseEnv, close };
  } catch (error) {
    close();
    throw error;
  }
}
