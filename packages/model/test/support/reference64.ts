// An independent float64 forward pass of a Qwen2 / Qwen3 causal LM, written straight from the architecture
// (Hugging Face modeling_qwen2.py / modeling_qwen3.py) on plain arrays, with [out, in] weights as stored on disk.

export interface ReferenceConfig {
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  tied: boolean;
  bias: boolean;
  qkNorm: boolean;
  /** taorl's token shift: the previous token's row of model.prev_embed_tokens.weight is added to the embedding. */
  tokenShift?: boolean;
}

type Weights = Map<string, Float32Array>;

function w(weights: Weights, name: string): Float32Array {
  const t = weights.get(name);
  if (!t) throw new Error(`reference: no tensor ${name}`);
  return t;
}

/** y = W x (+ b) for W [out, in]. */
function project(weight: Float32Array, x: number[], out: number, bias?: Float32Array): number[] {
  const n = x.length;
  return Array.from({ length: out }, (_, o) => {
    let s = bias ? bias[o]! : 0;
    for (let i = 0; i < n; i++) s += weight[o * n + i]! * x[i]!;
    return s;
  });
}

function rms(x: number[], weight: Float32Array, eps: number): number[] {
  const ms = x.reduce((a, v) => a + v * v, 0) / x.length;
  const inv = 1 / Math.sqrt(ms + eps);
  return x.map((v, i) => v * inv * weight[i]!);
}

function rope(x: number[], pos: number, theta: number): number[] {
  const d = x.length;
  const half = d / 2;
  const out = new Array<number>(d);
  for (let i = 0; i < half; i++) {
    const angle = pos * theta ** (-(2 * i) / d);
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    out[i] = x[i]! * c - x[i + half]! * s;
    out[i + half] = x[i + half]! * c + x[i]! * s;
  }
  return out;
}

/** Logits [t][vocab] for one sequence. */
export function referenceLogits(config: ReferenceConfig, weights: Weights, tokens: number[]): number[][] {
  const { hiddenSize: d, numHeads: h, numKvHeads: hkv, headDim: dh, rmsNormEps: eps } = config;
  const embedding = w(weights, 'model.embed_tokens.weight');
  const row = (table: Float32Array, id: number) => Array.from(table.subarray(id * d, (id + 1) * d));
  let hidden = tokens.map((id, t) => {
    if (!config.tokenShift || t === 0) return row(embedding, id);
    const previous = row(w(weights, 'model.prev_embed_tokens.weight'), tokens[t - 1]!);
    return row(embedding, id).map((v, i) => v + previous[i]!);
  });
  for (let l = 0; l < config.numLayers; l++) {
    const p = `model.layers.${l}`;
    const b = (n: string) => (config.bias ? w(weights, `${p}.self_attn.${n}.bias`) : undefined);
    const qs: number[][][] = [];
    const ks: number[][][] = [];
    const vs: number[][][] = [];
    hidden.forEach((x, pos) => {
      const n = rms(x, w(weights, `${p}.input_layernorm.weight`), eps);
      const q = project(w(weights, `${p}.self_attn.q_proj.weight`), n, h * dh, b('q_proj'));
      const k = project(w(weights, `${p}.self_attn.k_proj.weight`), n, hkv * dh, b('k_proj'));
      const v = project(w(weights, `${p}.self_attn.v_proj.weight`), n, hkv * dh, b('v_proj'));
      const heads = (flat: number[], count: number) =>
        Array.from({ length: count }, (_, j) => flat.slice(j * dh, (j + 1) * dh));
      let qh = heads(q, h);
      let kh = heads(k, hkv);
      if (config.qkNorm) {
        qh = qh.map((x) => rms(x, w(weights, `${p}.self_attn.q_norm.weight`), eps));
        kh = kh.map((x) => rms(x, w(weights, `${p}.self_attn.k_norm.weight`), eps));
      }
      qs.push(qh.map((x) => rope(x, pos, config.ropeTheta)));
      ks.push(kh.map((x) => rope(x, pos, config.ropeTheta)));
      vs.push(heads(v, hkv));
    });
    hidden = hidden.map((x, t) => {
      const attended: number[] = [];
      for (let head = 0; head < h; head++) {
        const kvHead = Math.floor(head / (h / hkv));
        const scores = Array.from(
          { length: t + 1 },
          (_, s) => qs[t]![head]!.reduce((a, qv, i) => a + qv * ks[s]![kvHead]![i]!, 0) / Math.sqrt(dh),
        );
        const max = Math.max(...scores);
        const exps = scores.map((s) => Math.exp(s - max));
        const z = exps.reduce((a, e) => a + e, 0);
        for (let i = 0; i < dh; i++)
          attended.push(exps.reduce((a, e, s) => a + (e / z) * vs[s]![kvHead]![i]!, 0));
      }
      const afterAttn = project(w(weights, `${p}.self_attn.o_proj.weight`), attended, d).map(
        (v, i) => v + x[i]!,
      );
      const n = rms(afterAttn, w(weights, `${p}.post_attention_layernorm.weight`), eps);
      const gate = project(w(weights, `${p}.mlp.gate_proj.weight`), n, config.intermediateSize);
      const up = project(w(weights, `${p}.mlp.up_proj.weight`), n, config.intermediateSize);
      const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]!);
      return project(w(weights, `${p}.mlp.down_proj.weight`), act, d).map((v, i) => v + afterAttn[i]!);
    });
  }
  const head = w(weights, config.tied ? 'model.embed_tokens.weight' : 'lm_head.weight');
  return hidden.map((x) => project(head, rms(x, w(weights, 'model.norm.weight'), eps), config.vocabSize));
}
