import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file or folder shipped with the trainer (apps/trainer/<relative>), found by walking up from this module, so it
 * works from the sources (src/util/) and from the bundled CLI (dist/) alike.
 */
function shippedPath(relative: string, what: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`${what} not found in apps/trainer/${relative}`);
}

/** The path of a shipped preset (apps/trainer/configs/<name>.yaml). */
export const presetPath = (name: string): string =>
  shippedPath(join('configs', `${name}.yaml`), `preset '${name}'`);

/**
 * The folder of the demo's pretrained tiny base model (apps/trainer/base/: config.json, model.safetensors and
 * provenance.json), made by `pnpm --filter ./apps/trainer pretrain-base`.
 */
export const basePolicyPath = (): string =>
  dirname(shippedPath(join('base', 'model.safetensors'), 'the pretrained base model'));
