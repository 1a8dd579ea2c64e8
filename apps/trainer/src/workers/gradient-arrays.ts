import type * as tf from '@tensorflow/tfjs';
import type { JobOutput } from './replica-host.js';

/**
 * A worker's gradients as arrays for the main thread, one per variable (null where the loss does not reach it),
 * with their buffers to hand over instead of copying them: the arrays are copies read out of the tensors, which
 * are disposed.
 */
export async function gradientArrays(
  gradients: readonly (tf.Tensor | null)[],
): Promise<JobOutput<(Float32Array | null)[]>> {
  const result = await Promise.all(
    gradients.map(async (g) => (g === null ? null : ((await g.data()) as Float32Array))),
  );
  for (const g of gradients) g?.dispose();
  const transfer = result.flatMap((g) => (g === null ? [] : [g.buffer as ArrayBuffer]));
  return { result, transfer };
}
