import * as tf from '@tensorflow/tfjs';

/**
 * The per-sequence mean over loss tokens as an op on [B, T] tensors (PolicyLossContext.sequenceMean). Padded rows
 * (no sequence ids): a masked row mean. Packed rows: a membership matrix M [B*T, S] built once from the plain
 * sequence ids, so the means are two matrix products, M (M^T (x m) / M^T m), which every backend has.
 */
export function sequenceMeanOp(
  lossMask: tf.Tensor2D,
  sequenceIds: ArrayLike<number> | undefined,
): (x: tf.Tensor2D) => tf.Tensor2D {
  const [rows, columns] = lossMask.shape;
  if (sequenceIds === undefined) {
    return (x) =>
      tf.tidy(() => {
        const sums = tf.sum(tf.mul(x, lossMask), 1, true);
        const counts = tf.maximum(tf.sum(lossMask, 1, true), 1);
        return tf.mul(tf.div(sums, counts), tf.onesLike(x)) as tf.Tensor2D;
      });
  }
  const size = rows * columns;
  if (sequenceIds.length !== size) {
    throw new Error(`sequenceMean: sequenceIds has ${sequenceIds.length} entries, expected ${size}`);
  }
  const columnOf = new Map<number, number>();
  for (let index = 0; index < size; index++) {
    const id = sequenceIds[index]!;
    if (id >= 0 && !columnOf.has(id)) columnOf.set(id, columnOf.size);
  }
  const membership = new Float32Array(size * Math.max(columnOf.size, 1));
  for (let index = 0; index < size; index++) {
    const column = columnOf.get(sequenceIds[index]!);
    if (column !== undefined) membership[index * columnOf.size + column] = 1;
  }
  return (x) =>
    tf.tidy(() => {
      const members = tf.tensor2d(membership, [size, Math.max(columnOf.size, 1)]);
      const mask = tf.reshape(lossMask, [size, 1]);
      const sums = tf.matMul(members, tf.mul(tf.reshape(x, [size, 1]), mask), true, false);
      const counts = tf.maximum(tf.matMul(members, mask, true, false), 1);
      return tf.reshape(tf.matMul(members, tf.div(sums, counts)), [rows, columns]) as tf.Tensor2D;
    });
}
