import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The path of a shipped preset (apps/trainer/configs/<name>.yaml). Found by walking up from this module, so it
 * works from the sources (src/cli/) and from the bundled CLI (dist/) alike.
 */
export function presetPath(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'configs', `${name}.yaml`);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`preset '${name}' not found in apps/trainer/configs/`);
}
