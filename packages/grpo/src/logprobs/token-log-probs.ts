import * as tf from '@tensorflow/tfjs';

/** Log-probabilities of the target tokens and entropies of the full next-token distributions, both [B, T]. */
export interface TokenLogProbsAndEntropy {
  logProbs: tf.Tensor2D;
  entropy: tf.Tensor2D;
}

export interface TokenLogProbsOptions {
  /**
   * Divides the logits before the softmax. Use the rollout's sampling temperature so that the log-probs are
   * comparable with the rollout's (verl does the same). Default 1.
   */
  temperature?: number;
  /**
   * Token positions per chunk, counted over the flattened [B x T] positions. Default: as many as keep one
   * chunk's [chunk, V] temporaries under 2^22 elements (16 MiB of float32).
   */
  chunkTokens?: number;
}

const CHUNK_ELEMENTS = 1 << 22;

/**
 * log p(target_t) = z_t[target_t] - logsumexp(z_t) and H_t = logsumexp(z_t) - sum_v softmax(z_t)_v z_t,v for
 * logits z [B, T, V] and int32 targets [B, T], differentiable with respect to the logits (ALGORITHMS.md section 1).
 *
 * Memory: the positions are processed in chunks, forward and backward, so apart from the logits themselves
 * only chunk-sized [chunk, V] temporaries live, and the backward pass produces the logits' gradient directly
 * (no log-softmax or one-hot of the whole batch is kept for the tape). Chunks are row ranges of the logits
 * viewed as [B x T, V], contiguous in memory: slicing the middle axis of [B, T, V] instead is a slow
 * element-by-element copy on the cpu backend. The target logit is read with a flat gather, and the backward
 * one-hot is an int32 one-hot cast to float: tfjs-backend-wasm returns wrong values for a float32 oneHot
 * (PLATFORM.md).
 */
export function tokenLogProbsAndEntropy(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  options: TokenLogProbsOptions = {},
): TokenLogProbsAndEntropy {
  const [batch, time, vocab] = logits.shape;
  const fail = (message: string): never => {
    throw new Error(`tokenLogProbsAndEntropy: ${message}`);
  };
  if (logits.rank !== 3) fail(`logits must be [B, T, V], got rank ${logits.rank}`);
  if (targets.rank !== 2 || targets.shape[0] !== batch || targets.shape[1] !== time) {
    fail(
      `targets must be [${batch}, ${time}] to match logits [${logits.shape.join(', ')}], got [${targets.shape.join(', ')}]`,
    );
  }
  if (targets.dtype !== 'int32') fail(`targets must be int32, got ${targets.dtype}`);
  const temperature = options.temperature ?? 1;
  if (!(temperature > 0 && Number.isFinite(temperature))) {
    fail(`options.temperature must be a positive number, got ${temperature}`);
  }
  const chunkTokens = options.chunkTokens ?? Math.max(1, Math.floor(CHUNK_ELEMENTS / Math.max(1, vocab)));
  if (!Number.isInteger(chunkTokens) || chunkTokens < 1) {
    fail(`options.chunkTokens must be a positive integer, got ${chunkTokens}`);
  }
  const positions = batch * time;
  const chunks = chunkBounds(positions, chunkTokens);

  // One differentiable op returning [B x T, 2] (log-prob, entropy): customGrad has a single output.
  const fused = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [flatLogits, flatTargets, save] = args as [tf.Tensor2D, tf.Tensor1D, tf.GradSaveFunc];
    // Saved, not only captured: targets created inside the caller's gradient scope are disposed before the
    // backward pass unless the tape keeps them.
    save([flatLogits, flatTargets]);
    // One tidy per chunk, so each chunk's [size, V] temporaries are freed before the next chunk starts.
    const value = tf.tidy(() =>
      tf.concat(
        chunks.map(([start, size]) =>
          tf.tidy(() => {
            const stats = chunkStatistics(flatLogits, flatTargets, start, size, temperature);
            return tf.stack([stats.logProbs, stats.entropy], 1);
          }),
        ),
        0,
      ),
    );
    const gradFunc = (dy: tf.Tensor, saved: tf.Tensor[]): tf.Tensor[] => {
      const [savedLogits, savedTargets] = saved as [tf.Tensor2D, tf.Tensor1D];
      const pieces = chunks.map(([start, size]) =>
        tf.tidy(() => {
          const upstream = tf.slice(dy, [start, 0], [size, 2]);
          const [gradLogProb, gradEntropy] = tf.unstack(upstream, 1) as [tf.Tensor1D, tf.Tensor1D];
          return chunkLogitGradient(
            savedLogits,
            savedTargets,
            start,
            size,
            temperature,
            gradLogProb,
            gradEntropy,
          );
        }),
      );
      const gradient = pieces.length === 1 ? pieces[0]! : tf.concat(pieces, 0);
      if (pieces.length > 1) tf.dispose(pieces);
      return [gradient, tf.zerosLike(savedTargets)];
    };
    return { value, gradFunc };
  });

  return tf.tidy(() => {
    const flat = fused(tf.reshape(logits, [positions, vocab]), tf.reshape(targets, [positions]));
    const [logProbs, entropy] = tf.unstack(tf.reshape(flat, [batch, time, 2]), 2) as [
      tf.Tensor2D,
      tf.Tensor2D,
    ];
    return { logProbs, entropy };
  });
}

/** [start, size] of consecutive chunks covering 0..length. */
function chunkBounds(length: number, chunkSize: number): [number, number][] {
  const bounds: [number, number][] = [];
  for (let start = 0; start < length; start += chunkSize)
    bounds.push([start, Math.min(chunkSize, length - start)]);
  return bounds;
}

interface ChunkSoftmax {
  /** log softmax(z / temperature) over the vocabulary, [size, V]. */
  logSoftmax: tf.Tensor2D;
  probs: tf.Tensor2D;
  logProbs: tf.Tensor1D;
  entropy: tf.Tensor1D;
}

function chunkStatistics(
  logits: tf.Tensor2D,
  targets: tf.Tensor1D,
  start: number,
  size: number,
  temperature: number,
): ChunkSoftmax {
  const [positions, vocab] = logits.shape;
  const chunk = size === positions ? logits : tf.slice(logits, [start, 0], [size, vocab]);
  const scaled = temperature === 1 ? chunk : tf.div(chunk, temperature);
  // Subtracting the row maximum keeps exp() from overflowing: the stable log-softmax.
  const shifted = tf.sub(scaled, tf.max(scaled, 1, true));
  const exps = tf.exp(shifted);
  const sumExps = tf.sum(exps, 1, true);
  const probs = tf.div(exps, sumExps) as tf.Tensor2D;
  const logSoftmax = tf.sub(shifted, tf.log(sumExps)) as tf.Tensor2D;
  const entropy = tf.neg(tf.sum(tf.mul(probs, logSoftmax), 1)) as tf.Tensor1D;
  const rowOffsets = tf.mul(tf.range(0, size, 1, 'int32'), tf.scalar(vocab, 'int32'));
  const flatIndices = tf.add(rowOffsets, tf.slice(targets, [start], [size]));
  const logProbs = tf.gather(tf.reshape(logSoftmax, [-1]), flatIndices) as tf.Tensor1D;
  return { logSoftmax, probs, logProbs, entropy };
}

/**
 * d/dz of (g_lp . log p_target + g_H . H) for one chunk: with y = z / temperature and p = softmax(y),
 * d log p_target / dy = onehot(target) - p and dH / dy = -p (log p + H); both divided by the temperature.
 */
function chunkLogitGradient(
  logits: tf.Tensor2D,
  targets: tf.Tensor1D,
  start: number,
  size: number,
  temperature: number,
  gradLogProb: tf.Tensor1D,
  gradEntropy: tf.Tensor1D,
): tf.Tensor2D {
  const vocab = logits.shape[1];
  const { logSoftmax, probs, entropy } = chunkStatistics(logits, targets, start, size, temperature);
  const oneHot = tf.cast(tf.oneHot(tf.slice(targets, [start], [size]), vocab), 'float32');
  const column = (x: tf.Tensor1D) => tf.expandDims(x, 1);
  // g_lp (onehot - p) - g_H p (log p + H) = g_lp onehot - p (g_lp + g_H (log p + H)): fewer [size, V] ops.
  const perVocab = tf.add(
    column(gradLogProb),
    tf.mul(column(gradEntropy), tf.add(logSoftmax, column(entropy))),
  );
  const gradient = tf.sub(tf.mul(oneHot, column(gradLogProb)), tf.mul(probs, perVocab));
  return (temperature === 1 ? gradient : tf.div(gradient, temperature)) as tf.Tensor2D;
}
