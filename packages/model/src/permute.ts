import * as tf from '@tensorflow/tfjs';

/** A transpose with size-1 axes dropped and input axes that stay neighbours merged into one. */
interface Reduced {
  shape: number[];
  perm: number[];
}

function reduce(shape: readonly number[], perm: readonly number[]): Reduced {
  const kept = perm.filter((axis) => shape[axis] !== 1);
  const groups: number[][] = [];
  for (const axis of kept) {
    const last = groups[groups.length - 1];
    if (last && last[last.length - 1]! + 1 === axis) last.push(axis);
    else groups.push([axis]);
  }
  const byInput = [...groups].sort((a, b) => a[0]! - b[0]!);
  return {
    shape: byInput.map((g) => g.reduce((n, axis) => n * shape[axis]!, 1)),
    perm: groups.map((g) => byInput.indexOf(g)),
  };
}

/** Ranks the wasm Transpose kernel handles with a fast loop; rank 5 and up take a generic path ~20x slower. */
const FAST_RANK = 4;

function transposeReduced(x: tf.Tensor, reduced: Reduced): tf.Tensor {
  return tf.transpose(tf.reshape(x, reduced.shape), reduced.perm);
}

/**
 * tf.transpose(x, perm) computed as at most two transposes of rank <= 4 (docs/benchmarks/models.md: a rank-5
 * transpose cost 38 ms where rank 2-4 ones cost 1-6 ms on wasm): neighbouring axes are merged, and when that is not
 * enough, one input axis is first moved to an end. The result and its gradient are exactly tf.transpose's.
 */
export function permute<T extends tf.Tensor>(x: T, perm: readonly number[]): T {
  const outShape = perm.map((axis) => x.shape[axis]!);
  const direct = reduce(x.shape, perm);
  if (direct.perm.length <= FAST_RANK) return tf.reshape(transposeReduced(x, direct), outShape) as T;
  // From here on x is viewed with the reduced (merged) shape.
  const rank = direct.shape.length;
  for (let axis = 0; axis < rank; axis++) {
    for (const toEnd of [true, false]) {
      const rest = Array.from({ length: rank }, (_, i) => i).filter((i) => i !== axis);
      const first = toEnd ? [...rest, axis] : [axis, ...rest];
      const middleShape = first.map((i) => direct.shape[i]!);
      const second = reduce(
        middleShape,
        direct.perm.map((i) => first.indexOf(i)),
      );
      if (second.perm.length <= FAST_RANK) {
        const middle = transposeReduced(x, reduce(direct.shape, first));
        return tf.reshape(transposeReduced(middle, second), outShape) as T;
      }
    }
  }
  return tf.transpose(x, [...perm]);
}
