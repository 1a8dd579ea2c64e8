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
   * Sequence positions per chunk. Default: as many as keep one chunk's [B, chunk, V] temporaries under
   * 2^22 elements (16 MiB of float32).
   */
  chunkSize?: number;
}

const CHUNK_ELEMENTS = 1 << 22;

/**
 * log p(target_t) = z_t[target_t] - logsumexp(z_t) and H_t = logsumexp(z_t) - sum_v softmax(z_t)_v z_t,v for
 * logits z [B, T, V] and int32 targets [B, T], differentiable with respect to the logits (ALGORITHMS.md section 1).
 *
 * Memory: the sequence is processed in chunks of positions, forward and backward, so apart from the logits
 * themselves only chunk-sized [B, chunk, V] temporaries live, and the backward pass produces the logits'
 * gradient directly (no log-softmax or one-hot of the whole batch is kept for the tape). The target logit is
 * read with a flat gather, and the backward one-hot is an int32 one-hot cast to float: tfjs-backend-wasm
 * returns wrong values for a float32 oneHot (PLATFORM.md).
 */
export function tokenLogProbsAndEntropy(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  options: TokenLogProbsOptions = {},
): TokenLogProbsAndEntropy {
  const [batch, time, vocab] = logits.shape;
  if (logits.rank !== 3)
    throw new Error(`tokenLogProbsAndEntropy: logits must be [B, T, V], got rank ${logits.rank}`);
  if (targets.rank !== 2 || targets.shape[0] !== batch || targets.shape[1] !== time) {
    throw new Error(
      `tokenLogProbsAndEntropy: targets must be [${batch}, ${time}] to match logits [${logits.shape.join(', ')}], got [${targets.shape.join(', ')}]`,
    );
  }
  if (targets.dtype !== 'int32')
    throw new Error(`tokenLogProbsAndEntropy: targets must be int32, got ${targets.dtype}`);
  const temperature = options.temperature ?? 1;
  if (!(temperature > 0 && Number.isFinite(temperature))) {
    throw new Error(
      `tokenLogProbsAndEntropy: options.temperature must be a positive number, got ${temperature}`,
    );
  }
  const chunkSize = options.chunkSize ?? Math.max(1, Math.floor(CHUNK_ELEMENTS / Math.max(1, batch * vocab)));
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new Error(
      `tokenLogProbsAndEntropy: options.chunkSize must be a positive integer, got ${chunkSize}`,
    );
  }
  const chunks = chunkBounds(time, chunkSize);

  // One differentiable op returning [B, T, 2] (log-prob, entropy): customGrad has a single output.
  const fused = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [z, save] = args as [tf.Tensor3D, tf.GradSaveFunc];
    // Saved, not only captured: a targets tensor created inside the caller's gradient scope is disposed
    // before the backward pass unless the tape keeps it.
    save([z, targets]);
    const value = tf.tidy(() =>
      tf.concat(
        chunks.map(([start, size]) => {
          const stats = chunkStatistics(z, targets, start, size, temperature);
          return tf.stack([stats.logProbs, stats.entropy], 2);
        }),
        1,
      ),
    );
    const gradFunc = (dy: tf.Tensor, saved: tf.Tensor[]): tf.Tensor =>
      tf.tidy(() => {
        const [savedLogits, savedTargets] = saved as [tf.Tensor3D, tf.Tensor2D];
        return tf.concat(
          chunks.map(([start, size]) => {
            const upstream = tf.slice(dy, [0, start, 0], [batch, size, 2]);
            const [gradLogProb, gradEntropy] = tf.unstack(upstream, 2) as [tf.Tensor2D, tf.Tensor2D];
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
          1,
        );
      });
    return { value, gradFunc };
  });

  return tf.tidy(() => {
    const [logProbs, entropy] = tf.unstack(fused(logits), 2) as [tf.Tensor2D, tf.Tensor2D];
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
  /** log softmax(z / temperature) over the vocabulary, [B, size, V]. */
  logSoftmax: tf.Tensor3D;
  probs: tf.Tensor3D;
  logProbs: tf.Tensor2D;
  entropy: tf.Tensor2D;
}

function chunkStatistics(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  start: number,
  size: number,
  temperature: number,
): ChunkSoftmax {
  const [batch, , vocab] = logits.shape;
  const chunk = size === logits.shape[1] ? logits : tf.slice(logits, [0, start, 0], [batch, size, vocab]);
  const scaled = temperature === 1 ? chunk : tf.div(chunk, temperature);
  // Subtracting the row maximum keeps exp() from overflowing: the stable log-softmax.
  const shifted = tf.sub(scaled, tf.max(scaled, 2, true));
  const exps = tf.exp(shifted);
  const sumExps = tf.sum(exps, 2, true);
  const probs = tf.div(exps, sumExps) as tf.Tensor3D;
  const logSoftmax = tf.sub(shifted, tf.log(sumExps)) as tf.Tensor3D;
  const entropy = tf.neg(tf.sum(tf.mul(probs, logSoftmax), 2)) as tf.Tensor2D;
  const rowOffsets = tf.mul(tf.range(0, batch * size, 1, 'int32'), tf.scalar(vocab, 'int32'));
  const flatTargets = tf.reshape(tf.slice(targets, [0, start], [batch, size]), [-1]);
  const picked = tf.gather(tf.reshape(logSoftmax, [-1]), tf.add(rowOffsets, flatTargets));
  return { logSoftmax, probs, logProbs: tf.reshape(picked, [batch, size]), entropy };
}

/**
 * d/dz of (g_lp . log p_target + g_H . H) for one chunk: with y = z / temperature and p = softmax(y),
 * d log p_target / dy = onehot(target) - p and dH / dy = -p (log p + H); both divided by the temperature.
 */
function chunkLogitGradient(
  logits: tf.Tensor3D,
  targets: tf.Tensor2D,
  start: number,
  size: number,
  temperature: number,
  gradLogProb: tf.Tensor2D,
  gradEntropy: tf.Tensor2D,
): tf.Tensor3D {
  const vocab = logits.shape[2];
  const { logSoftmax, probs, entropy } = chunkStatistics(logits, targets, start, size, temperature);
  const oneHot = tf.cast(tf.oneHot(tf.slice(targets, [0, start], [logits.shape[0], size]), vocab), 'float32');
  // g_lp (onehot - p) - g_H p (log p + H) = g_lp onehot - p (g_lp + g_H (log p + H)): fewer [B, size, V] ops.
  const perVocab = tf.add(
    tf.expandDims(gradLogProb, 2),
    tf.mul(tf.expandDims(gradEntropy, 2), tf.add(logSoftmax, tf.expandDims(entropy, 2))),
  );
  const gradient = tf.sub(tf.mul(oneHot, tf.expandDims(gradLogProb, 2)), tf.mul(probs, perVocab));
  return (temperature === 1 ? gradient : tf.div(gradient, temperature)) as tf.Tensor3D;
}
