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

// The three element-wise blocks below are custom ops with hand-derived gradients. Each primitive op on the
// autodiff tape keeps a copy of the tensors its gradient needs (tfjs clones them; on wasm a clone is a memcpy), so a
// block written as 5-10 primitives copies several activations per step; as one op it saves only its inputs.

/**
 * RMSNorm over the last axis (Zhang & Sennrich 2019; Qwen's form): y = x * r * w with
 * r = (mean(x^2) + eps)^(-1/2). weight has the shape of x's trailing axes ([d], or [heads, d] for per-head norms).
 * Gradient, with g = dy * w: dx = r * (g - x * r^2 * mean(g * x)), dw = sum over leading axes of dy * x * r.
 */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  const op = tf.customGrad(((input: tf.Tensor, w: tf.Tensor, save: SaveFn) => {
    const r = tf.rsqrt(tf.add(tf.mean(tf.square(input), -1, true), eps));
    save([input, w, r]);
    return {
      value: tf.mul(tf.mul(input, r), w),
      gradFunc: (dy: tf.Tensor, [xs, ws, rs]: tf.Tensor[]) => {
        const g = tf.mul(dy, ws!);
        const projection = tf.mul(tf.square(rs!), tf.mean(tf.mul(g, xs!), -1, true));
        const dx = tf.mul(rs!, tf.sub(g, tf.mul(xs!, projection)));
        const dw = tf.sum(tf.reshape(tf.mul(dy, tf.mul(xs!, rs!)), [-1, ...ws!.shape]), 0);
        return [dx, dw];
      },
    };
  }) as unknown as CustomGradientFunc) as (input: tf.Tensor, w: tf.Tensor) => tf.Tensor;
  return op(x, weight) as T;
}

/**
 * The SwiGLU activation (Shazeer 2020): silu(gate) * up with silu(x) = x * sigmoid(x). Gradient, with
 * s = sigmoid(gate): d gate = dy * up * s * (1 + gate * (1 - s)), d up = dy * gate * s.
 */
export const swiGlu = tf.customGrad(((gate: tf.Tensor2D, up: tf.Tensor2D, save: SaveFn) => {
  save([gate, up]);
  return {
    value: tf.mul(tf.mul(gate, tf.sigmoid(gate)), up),
    gradFunc: (dy: tf.Tensor2D, [g, u]: tf.Tensor[]) => {
      const s = tf.sigmoid(g!);
      const dGate = tf.mul(tf.mul(dy, u!), tf.mul(s, tf.add(1, tf.mul(g!, tf.sub(1, s)))));
      return [dGate, tf.mul(dy, tf.mul(g!, s))];
    },
  };
}) as unknown as CustomGradientFunc) as (gate: tf.Tensor2D, up: tf.Tensor2D) => tf.Tensor2D;

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

/** rows [n, dim] times the signed permutation that rotates halves: sign 1 gives rotateHalf, -1 its transpose. */
function rotateRows(x: tf.Tensor, sign: 1 | -1): tf.Tensor {
  const dim = x.shape[x.rank - 1]!;
  return tf.reshape(tf.matMul(tf.reshape(x, [-1, dim]) as tf.Tensor2D, rotateHalfMatrix(dim, sign)), x.shape);
}

/**
 * Applies rotate-half RoPE to x [..., heads, headDim]: y = x * cos + rotateHalf(x) * sin. rotateHalf is a product
 * with a signed permutation matrix R: one 2-D matMul is far cheaper on wasm than the split / negate / concat it
 * replaces, and exact (each output is one input times +-1). Gradient: dx = dy * cos + (dy * sin) R^T.
 */
export function applyRope<T extends tf.Tensor>(x: T, tables: RopeTables): T {
  const op = tf.customGrad(((input: tf.Tensor, save: SaveFn) => {
    save([tables.cos, tables.sin]);
    return {
      value: tf.add(tf.mul(input, tables.cos), tf.mul(rotateRows(input, 1), tables.sin)),
      gradFunc: (dy: tf.Tensor, [cos, sin]: tf.Tensor[]) =>
        tf.add(tf.mul(dy, cos!), rotateRows(tf.mul(dy, sin!), -1)),
    };
  }) as unknown as CustomGradientFunc) as (input: tf.Tensor) => tf.Tensor;
  return op(x) as T;
}
