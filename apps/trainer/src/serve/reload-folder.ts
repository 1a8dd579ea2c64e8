import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** True when the real path `path` is `root` or lies under it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The folder POST /update_weights_from_disk may load: `requested` (absolute, or relative to `root`) with every link
 * resolved must lie inside `root`, and so must every link in it, so the loader reads files under `root` only.
 * Errors name the request and the root, never a file's content. (A local user who can write into `root` could
 * still swap a link in between this check and the load: give the folder to the trainer's user alone.)
 */
export async function reloadFolder(root: string, requested: string): Promise<string> {
  const realRoot = await realpath(root);
  const outside = new Error(`model_path ${requested} is outside the reload folder ${realRoot}`);
  // Checked by name first, so a client cannot probe which paths exist elsewhere.
  const named = resolve(realRoot, requested);
  if (!within(realRoot, named)) throw outside;
  let dir: string;
  try {
    dir = await realpath(named);
  } catch {
    throw new Error(`model_path ${requested} does not exist`);
  }
  if (!within(realRoot, dir)) throw outside;
  if (!(await stat(dir)).isDirectory()) throw new Error(`model_path ${requested} is not a folder`);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const target = await realpath(join(dir, entry.name)).catch(() => null);
    if (target === null || !within(realRoot, target)) {
      throw new Error(`${join(requested, entry.name)} is a link out of the reload folder ${realRoot}`);
    }
  }
  return dir;
}
