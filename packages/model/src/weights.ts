import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import type { DecoderWeights, LayerWeights } from './decoder.js';
import { weightSpecs } from './weight-specs.js';

/** One layer variable and the Hugging Face tensor it holds; linear weights are transposed on the way in. */
interface Binding {
  field: keyof LayerWeights;
  /** Name under `model.layers.<i>.`. */
  name: string;
  linear: boolean;
}

function layerBindings(config: ModelConfig): Binding[] {
  const bind = (field: keyof LayerWeights, name: string, linear = false): Binding => ({
    field,
    name,
    linear,
  });
  return [
    bind('inputNorm', 'input_layernorm.weight'),
    bind('q', 'self_attn.q_proj.weight', true),
    bind('k', 'self_attn.k_proj.weight', true),
    bind('v', 'self_attn.v_proj.weight', true),
    ...(config.attentionBias
      ? [
          bind('qBias', 'self_attn.q_proj.bias'),
          bind('kBias', 'self_attn.k_proj.bias'),
          bind('vBias', 'self_attn.v_proj.bias'),
        ]
      : []),
    bind('o', 'self_attn.o_proj.weight', true),
    ...(config.qkNorm
      ? [bind('qNorm', 'self_attn.q_norm.weight'), bind('kNorm', 'self_attn.k_norm.weight')]
      : []),
    bind('postNorm', 'post_attention_layernorm.weight'),
    bind('gate', 'mlp.gate_proj.weight', true),
    bind('up', 'mlp.up_proj.weight', true),
    bind('down', 'mlp.down_proj.weight', true),
  ];
}

/** A row-major [rows, cols] matrix transposed (exact: a reordering). */
function transposed(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!;
  return out;
}

/** tfjs variable names are global: each set of weights gets its own prefix. */
let instances = 0;

/**
 * Builds trainable variables from Hugging Face tensors (as `loadCheckpoint` returns them): linear weights
 * transposed to [in, out], everything else as stored. Variables are named `policy<k>/<Hugging Face name>`.
 */
export function weightsFromTensors(config: ModelConfig, tensors: Map<string, Float32Array>): DecoderWeights {
  const prefix = `policy${instances++}/`;
  const shapes = new Map(weightSpecs(config).map((s) => [s.name, s.shape]));
  // tf.variable shares the initial tensor's data; disposing that tensor leaves the variable as sole owner.
  const variable = <R extends tf.Rank>(name: string, linear: boolean): tf.Variable<R> => {
    const data = tensors.get(name);
    const shape = shapes.get(name);
    if (data === undefined || shape === undefined) throw new Error(`weights: tensor "${name}" is missing`);
    const [out, inDim] = shape as [number, number];
    return tf.tidy(() => {
      const value = linear ? tf.tensor(transposed(data, out, inDim), [inDim, out]) : tf.tensor(data, shape);
      return tf.variable(value, true, prefix + name) as unknown as tf.Variable<R>;
    });
  };
  const bindings = layerBindings(config);
  const layers = Array.from({ length: config.numLayers }, (_, i) => {
    const layer: Partial<Record<keyof LayerWeights, tf.Variable>> = {};
    for (const b of bindings) layer[b.field] = variable(`model.layers.${i}.${b.name}`, b.linear);
    return layer as LayerWeights;
  });
  return {
    embedding: variable('model.embed_tokens.weight', false),
    ...(config.tokenShift
      ? { prevEmbedding: variable<tf.Rank.R2>('model.prev_embed_tokens.weight', false) }
      : {}),
    layers,
    norm: variable('model.norm.weight', false),
    ...(config.tieWordEmbeddings ? {} : { lmHead: variable<tf.Rank.R2>('lm_head.weight', true) }),
  };
}

/** Reads the variables back into Hugging Face tensors (exact: only reordering, no arithmetic). */
export function tensorsFromWeights(config: ModelConfig, weights: DecoderWeights): Map<string, Float32Array> {
  const tensors = new Map<string, Float32Array>();
  const read = (name: string, v: tf.Variable, linear: boolean) => {
    const data = v.dataSync() as Float32Array;
    const [inDim, out] = v.shape as [number, number];
    tensors.set(name, linear ? transposed(data, inDim, out) : Float32Array.from(data));
  };
  read('model.embed_tokens.weight', weights.embedding, false);
  if (weights.prevEmbedding) read('model.prev_embed_tokens.weight', weights.prevEmbedding, false);
  const bindings = layerBindings(config);
  weights.layers.forEach((layer, i) => {
    for (const b of bindings) read(`model.layers.${i}.${b.name}`, layer[b.field]!, b.linear);
  });
  read('model.norm.weight', weights.norm, false);
  if (weights.lmHead) read('lm_head.weight', weights.lmHead, true);
  return tensors;
}

/** Every variable, in a stable order (the optimizer's state follows it). */
export function weightVariables(weights: DecoderWeights): tf.Variable[] {
  const vars: tf.Variable[] = [weights.embedding];
  if (weights.prevEmbedding) vars.push(weights.prevEmbedding);
  for (const layer of weights.layers) vars.push(...(Object.values(layer) as tf.Variable[]));
  vars.push(weights.norm);
  if (weights.lmHead) vars.push(weights.lmHead);
  return vars;
}

/**
 * Fresh Hugging Face tensors for a config: norms 1, biases 0, every matrix N(0, 0.02^2) (transformers'
 * initializer_range default), and the residual-branch outputs (o_proj, down_proj) scaled by 1/sqrt(2 * layers) as
 * in GPT-2, so the residual stream's variance does not grow with depth.
 */
export function initialTensors(config: ModelConfig, seed: number): Map<string, Float32Array> {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const residualScale = 1 / Math.sqrt(2 * config.numLayers);
  const tensors = new Map<string, Float32Array>();
  for (const spec of weightSpecs(config)) {
    const data = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
    if (spec.name.endsWith('norm.weight')) data.fill(1);
    else if (spec.name.endsWith('.weight')) {
      const std = /(o_proj|down_proj)\.weight$/.test(spec.name) ? 0.02 * residualScale : 0.02;
      for (let i = 0; i < data.length; i++) data[i] = std * gaussian();
    }
    tensors.set(spec.name, data);
  }
  return tensors;
}
