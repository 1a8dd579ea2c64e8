import * as tf from '@tensorflow/tfjs';

// The layers below avoid the slow paths of tfjs's wasm backend
// (PLATFORM.md): matMul's default gradient uses transposed matMuls (a scalar loop on wasm, 10-50x slower), so
// every product here has a custom gradient that transposes explicitly (a fast copy) and multiplies untransposed;
// batched matMul is a scalar loop too, so attention products run as depthwise convolutions; the gather gradient
// needs a kernel wasm lacks, so small-vocabulary embeddings are an int one-hot times the table.

type SaveFn = (tensors: tf.Tensor[]) => void;
type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];

/** Row blocks tried by `transpose2d`, largest first. */
const ROW_BLOCKS = [128, 64, 32, 16, 8];

/**
 * x [r, c] -> x^T. wasm's 2-D Transpose walks a tall matrix with a cache-unfriendly stride; viewed as
 * [r / B, B, c] and transposed to [c, r / B, B], the same result costs 2-3x less (docs/benchmarks/models.md).
 */
export function transpose2d(x: tf.Tensor2D): tf.Tensor2D {
  const [r, c] = x.shape;
  const block = r > c ? ROW_BLOCKS.find((b) => r % b === 0 && r > b) : undefined;
  if (block === undefined) return tf.transpose(x);
  return tf.reshape(tf.transpose(tf.reshape(x, [r / block, block, c]), [2, 0, 1]), [c, r]);
}

/**
 * x [n, in] times w [in, out] with a gradient of untransposed products (matMul's own gradient uses transposed
 * matMuls, a scalar loop on wasm). @taorl/grpo's matMul2d does the same with plain transposes; this one uses
 * `transpose2d`, which matters here because every projection's weight gradient transposes its [tokens, in] input.
 */
export const linear = tf.customGrad(((x: tf.Tensor2D, w: tf.Tensor2D, save: SaveFn) => {
  save([x, w]);
  return {
    value: tf.matMul(x, w),
    gradFunc: (dy: tf.Tensor2D, [xs, ws]: tf.Tensor[]) => [
      tf.matMul(dy, transpose2d(ws as tf.Tensor2D)),
      tf.matMul(transpose2d(xs as tf.Tensor2D), dy),
    ],
  };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D;

const transposeLast = (x: tf.Tensor3D) => tf.transpose(x, [0, 2, 1]);

/** a [n, m, k] times b [n, k, p], with the same untransposed gradient scheme as matMul2d. */
export const batchMatMul = tf.customGrad(((a: tf.Tensor3D, b: tf.Tensor3D, save: SaveFn) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor3D, [as, bs]: tf.Tensor[]) => [
      tf.matMul(dy, transposeLast(bs as tf.Tensor3D)),
      tf.matMul(transposeLast(as as tf.Tensor3D), dy),
    ],
  };
}) as unknown as CustomGradientFunc) as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/** y[i, c, j] = sum_d x[i, d, c] w[d, c, j], as one depthwise convolution (see `channelProduct`). */
function depthwiseProduct(x: tf.Tensor3D, w: tf.Tensor3D): tf.Tensor3D {
  const [m, k, n] = x.shape;
  const p = w.shape[2];
  const input = tf.reshape(x, [1, m, k, n]) as tf.Tensor4D;
  const out = tf.depthwiseConv2d(input, tf.reshape(w, [1, k, n, p]) as tf.Tensor4D, 1, 'valid');
  return tf.reshape(out, [m, n, p]);
}

/**
 * A batch of n products, channel-last: x [m, k, n], w [k, n, p] -> y [m, n, p] with
 * y[i, c, j] = sum_d x[i, d, c] w[d, c, j]. It runs as a depthwise convolution (input 1 x m x k x n, filter
 * 1 x k x n x p, channel multiplier p), which the wasm backend hands to XNNPACK's GEMM kernels, while its batched
 * matMul is a scalar loop: 4-5x faster for attention-sized products, bit-identical results
 * (docs/benchmarks/models.md). Gradients are two more such products:
 * dx[i, d, c] = sum_j dy[i, c, j] w[d, c, j] and dw[d, c, j] = sum_i x[i, d, c] dy[i, c, j].
 */
export const channelProduct = tf.customGrad(((x: tf.Tensor3D, w: tf.Tensor3D, save: SaveFn) => {
  save([x, w]);
  return {
    value: depthwiseProduct(x, w),
    gradFunc: (dy: tf.Tensor3D, [xs, ws]: tf.Tensor[]) => [
      tf.transpose(
        depthwiseProduct(tf.transpose(dy, [0, 2, 1]), tf.transpose(ws as tf.Tensor3D, [2, 1, 0])),
        [0, 2, 1],
      ),
      depthwiseProduct(tf.transpose(xs as tf.Tensor3D, [1, 0, 2]), dy),
    ],
  };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor3D, w: tf.Tensor3D) => tf.Tensor3D;

/** Vocabularies up to this size embed by one-hot product; larger ones (real Qwen, 151k) by gather. */
const ONE_HOT_MAX_VOCAB = 4096;

/** Token embeddings: ids [n] int32, table [vocab, d] -> [n, d]. */
export function embed(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  const vocab = table.shape[0];
  if (vocab > ONE_HOT_MAX_VOCAB) return tf.gather(table, ids);
  // A float32 tf.oneHot is silently wrong on wasm (PLATFORM.md): build it as int32 and cast.
  const oneHot = tf.cast(tf.oneHot(ids, vocab, 1, 0, 'int32'), 'float32') as tf.Tensor2D;
  const op = tf.customGrad(((w: tf.Tensor2D, save: SaveFn) => {
    save([oneHot]);
    return {
      value: tf.matMul(oneHot, w),
      gradFunc: (dy: tf.Tensor2D, [h]: tf.Tensor[]) => tf.matMul(transpose2d(h as tf.Tensor2D), dy),
    };
  }) as unknown as CustomGradientFunc) as (w: tf.Tensor2D) => tf.Tensor2D;
  return op(table);
}

/** RMSNorm over the last axis, x * rsqrt(mean(x^2) + eps) * weight (Zhang & Sennrich 2019; Qwen's form). */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  const meanSquare = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(meanSquare, eps))), weight) as T;
}

/** SiLU(x) = x * sigmoid(x), the gate of the SwiGLU MLP (Shazeer 2020). */
export function silu<T extends tf.Tensor>(x: T): T {
  return tf.mul(x, tf.sigmoid(x)) as T;
}

/** Cosine and sine tables for rotate-half RoPE, each [..., headDim], to broadcast against [.., heads, headDim]. */
export interface RopeTables {
  cos: tf.Tensor;
  sin: tf.Tensor;
}

/**
 * RoPE angles for the given positions (Su et al. 2021, RoFormer; the rotate-half layout of Hugging Face's
 * Llama/Qwen). The frequencies and angles are rounded to float32 as transformers and vLLM compute them, so a
 * loaded checkpoint sees the rotations it was trained with even at large positions.
 * Returns tables of shape [...shape, 1, headDim] for positions laid out as `shape`.
 */
export function ropeTables(
  positions: Int32Array,
  shape: number[],
  headDim: number,
  theta: number,
): RopeTables {
  const half = headDim / 2;
  const invFreq = new Float32Array(half);
  for (let i = 0; i < half; i++) invFreq[i] = 1 / Math.fround(theta ** Math.fround((2 * i) / headDim));
  const cos = new Float32Array(positions.length * headDim);
  const sin = new Float32Array(positions.length * headDim);
  for (let p = 0; p < positions.length; p++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(positions[p]! * invFreq[i]!);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[p * headDim + i] = c;
      cos[p * headDim + i + half] = c;
      sin[p * headDim + i] = s;
      sin[p * headDim + i + half] = s;
    }
  }
  const tableShape = [...shape, 1, headDim];
  return { cos: tf.tensor(cos, tableShape), sin: tf.tensor(sin, tableShape) };
}

/** R with x R = rotateHalf(x) = concat(-x2, x1) for rows x = [x1, x2] of width dim; R^T = -R. */
function rotateHalfMatrix(dim: number, sign: 1 | -1): tf.Tensor2D {
  const half = dim / 2;
  const r = new Float32Array(dim * dim);
  for (let i = 0; i < half; i++) {
    r[(i + half) * dim + i] = -sign;
    r[i * dim + i + half] = sign;
  }
  return tf.tensor2d(r, [dim, dim]);
}

/** rows [n, dim] -> rotateHalf(rows), differentiable in rows only (R is a constant: no gradient is spent on it). */
const rotateHalf = tf.customGrad(((rows: tf.Tensor2D) => {
  const dim = rows.shape[1];
  return {
    value: tf.matMul(rows, rotateHalfMatrix(dim, 1)),
    gradFunc: (dy: tf.Tensor2D) => tf.matMul(dy, rotateHalfMatrix(dim, -1)),
  };
}) as unknown as CustomGradientFunc) as (rows: tf.Tensor2D) => tf.Tensor2D;

/**
 * Applies rotate-half RoPE to x [..., heads, headDim]: x * cos + rotateHalf(x) * sin. rotateHalf is a product with
 * a signed permutation matrix: one 2-D matMul is far cheaper on wasm than the split / negate / concat it replaces.
 * The product is exact (each output is one input times +-1).
 */
export function applyRope<T extends tf.Tensor>(x: T, tables: RopeTables): T {
  const dim = x.shape[x.rank - 1]!;
  const rotated = tf.reshape(rotateHalf(tf.reshape(x, [-1, dim]) as tf.Tensor2D), x.shape);
  return tf.add(tf.mul(x, tables.cos), tf.mul(rotated, tables.sin)) as T;
}
