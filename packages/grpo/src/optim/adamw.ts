import * as tf from '@tensorflow/tfjs';

/** AdamW hyper-parameters; defaults are PyTorch's torch.optim.AdamW. */
export interface AdamWConfig {
  beta1?: number;
  beta2?: number;
  epsilon?: number;
  /** Decoupled weight decay lambda: w <- w (1 - lr lambda) before the Adam step. Default 0.01. */
  weightDecay?: number;
  /**
   * Which variables decay. Default: those of rank >= 2 (matrices and embeddings), not biases and norm gains,
   * the usual transformer practice.
   */
  decays?: (variable: tf.Variable) => boolean;
}

/**
 * Everything AdamW carries between steps, as plain arrays aligned with its variables: a checkpoint that stores it
 * lets a resumed run take exactly the steps the uninterrupted run would have taken.
 */
export interface AdamWState {
  /** Optimizer steps applied so far (t in the bias corrections). */
  step: number;
  firstMoments: Float32Array[];
  secondMoments: Float32Array[];
}

/**
 * AdamW (Loshchilov and Hutter, arXiv 1711.05101), in PyTorch's form: w <- w (1 - lr lambda) - lr m^ / (sqrt(v^) + eps)
 * with bias-corrected moments m^ = m / (1 - b1^t), v^ = v / (1 - b2^t). tfjs's optimizers have no decoupled decay.
 */
export class AdamW {
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly epsilon: number;
  private readonly weightDecay: number;
  private readonly decayMask: boolean[];
  private readonly firstMoments: tf.Variable[];
  private readonly secondMoments: tf.Variable[];
  private stepCount = 0;

  constructor(
    private readonly variables: readonly tf.Variable[],
    config: AdamWConfig = {},
  ) {
    this.beta1 = config.beta1 ?? 0.9;
    this.beta2 = config.beta2 ?? 0.999;
    this.epsilon = config.epsilon ?? 1e-8;
    this.weightDecay = config.weightDecay ?? 0.01;
    for (const [field, value, ok] of [
      ['beta1', this.beta1, this.beta1 >= 0 && this.beta1 < 1],
      ['beta2', this.beta2, this.beta2 >= 0 && this.beta2 < 1],
      ['epsilon', this.epsilon, this.epsilon > 0],
      ['weightDecay', this.weightDecay, this.weightDecay >= 0 && Number.isFinite(this.weightDecay)],
    ] as const) {
      if (!ok) throw new Error(`AdamW config.${field} is out of range: ${value}`);
    }
    const decays = config.decays ?? ((variable: tf.Variable) => variable.rank >= 2);
    this.decayMask = variables.map(decays);
    this.firstMoments = variables.map((variable) => tf.variable(tf.zerosLike(variable), false));
    this.secondMoments = variables.map((variable) => tf.variable(tf.zerosLike(variable), false));
  }

  /** Optimizer steps applied so far (t). */
  get steps(): number {
    return this.stepCount;
  }

  /** One step with `gradients` aligned with the variables (null = no gradient this step) at learning rate lr. */
  apply(gradients: readonly (tf.Tensor | null)[], lr: number): void {
    this.stepCount += 1;
    const correction1 = 1 - this.beta1 ** this.stepCount;
    const correction2 = 1 - this.beta2 ** this.stepCount;
    tf.tidy(() => {
      this.variables.forEach((variable, index) => {
        const gradient = gradients[index];
        if (gradient === null || gradient === undefined) return;
        const m = this.firstMoments[index]!;
        const v = this.secondMoments[index]!;
        m.assign(tf.add(tf.mul(m, this.beta1), tf.mul(gradient, 1 - this.beta1)));
        v.assign(tf.add(tf.mul(v, this.beta2), tf.mul(tf.square(gradient), 1 - this.beta2)));
        const step = tf.div(tf.div(m, correction1), tf.add(tf.sqrt(tf.div(v, correction2)), this.epsilon));
        const decayed = this.decayMask[index] ? tf.mul(variable, 1 - lr * this.weightDecay) : variable;
        variable.assign(tf.sub(decayed, tf.mul(step, lr)));
      });
    });
  }

  /** A copy of the step count and moment estimates (see {@link AdamWState}). */
  exportState(): AdamWState {
    const read = (moments: tf.Variable[]) =>
      moments.map((m) => Float32Array.from(m.dataSync() as Float32Array));
    return {
      step: this.stepCount,
      firstMoments: read(this.firstMoments),
      secondMoments: read(this.secondMoments),
    };
  }

  /** Replaces the step count and moments with `state`, which must match these variables' count and sizes. */
  importState(state: AdamWState): void {
    if (!(Number.isInteger(state.step) && state.step >= 0)) {
      throw new Error(`AdamW.importState: state.step must be an integer >= 0, got ${state.step}`);
    }
    for (const field of ['firstMoments', 'secondMoments'] as const) {
      const moments = state[field];
      if (moments.length !== this.variables.length) {
        throw new Error(
          `AdamW.importState: state.${field} has ${moments.length} arrays, the optimizer has ${this.variables.length} variables`,
        );
      }
      moments.forEach((values, index) => {
        const expected = this.variables[index]!.size;
        if (values.length !== expected) {
          throw new Error(
            `AdamW.importState: state.${field}[${index}] has ${values.length} values, variable ${index} has ${expected}`,
          );
        }
      });
    }
    state.firstMoments.forEach((values, index) => {
      const m = this.firstMoments[index]!;
      tf.tidy(() => m.assign(tf.tensor(values, m.shape)));
    });
    state.secondMoments.forEach((values, index) => {
      const v = this.secondMoments[index]!;
      tf.tidy(() => v.assign(tf.tensor(values, v.shape)));
    });
    this.stepCount = state.step;
  }

  /** Frees the moment estimates. */
  dispose(): void {
    tf.dispose([...this.firstMoments, ...this.secondMoments]);
  }
}
