import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const CORE = '@tensorflow/tfjs-core';

/** The tfjs-core entry a module at `file` gets: its own dependency, or that of its @tensorflow/tfjs; else null. */
function tfjsCoreOf(file: string): string | null {
  const require = createRequire(file);
  const attempts = [
    () => require.resolve(CORE),
    () => createRequire(require.resolve('@tensorflow/tfjs')).resolve(CORE),
  ];
  for (const attempt of attempts) {
    try {
      return realpathSync(attempt());
    } catch {
      // Not reachable this way: try the next, or the module does not use tfjs.
    }
  }
  return null;
}

/** The package folder of a resolved tfjs-core entry, for messages. */
const packageFolder = (entry: string) => entry.slice(0, entry.lastIndexOf(CORE) + CORE.length);

let trainerCore: string | null | undefined;

/**
 * Why the module at `path` would load a second TensorFlow.js, or null when it would use the trainer's (or none).
 * Two copies in one process register every kernel twice ("kernel ... already registered", "Platform node has
 * already been set") and may disagree on the backend; a plug-in package avoids it by declaring @tensorflow/tfjs
 * as a peer dependency (docs/plug-ins.md).
 */
export function secondTfjsCopy(path: string): string | null {
  trainerCore ??= tfjsCoreOf(fileURLToPath(import.meta.url));
  const own = tfjsCoreOf(path);
  if (own === null || trainerCore === null || own === trainerCore) return null;
  return (
    `it would load its own copy of TensorFlow.js (${packageFolder(own)}; the trainer's is ` +
    `${packageFolder(trainerCore)}), which registers every kernel a second time. Declare @tensorflow/tfjs as a ` +
    "peerDependency of the plug-in's package, not a dependency, so that it uses the trainer's copy (docs/plug-ins.md)"
  );
}
