// The RoPE and attention-pattern fields of a Hugging Face config.json, in transformers 4's and 5's layouts.

type Json = Record<string, unknown>;

/** transformers' default RoPE base when a config states none (RotaryEmbeddingConfigMixin.default_theta). */
const DEFAULT_ROPE_THETA = 10000;

/** The keys a "default" RoPE parameter object may hold; `type` is the older spelling of `rope_type`. */
const DEFAULT_ROPE_KEYS = new Set(['rope_type', 'type', 'rope_theta', 'partial_rotary_factor']);

function positiveTheta(value: unknown, field: string, source: string): number {
  if (typeof value !== 'number' || !(value > 0)) {
    throw new Error(`${source}: field "${field}" must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function wholeHead(value: unknown, field: string, source: string): void {
  if (value !== undefined && value !== null && value !== 1) {
    throw new Error(
      `${source}: ${field} ${JSON.stringify(value)} is not supported (RoPE over the whole head only)`,
    );
  }
}

/**
 * The RoPE base of a config in either layout: transformers 4 writes `rope_theta` at the top level (and
 * `rope_scaling` for scaled variants), transformers 5 writes `rope_parameters: {rope_type, rope_theta}` and no
 * top-level `rope_theta`. The decoder implements only "default" RoPE over the whole head, so every other rope_type
 * (linear, dynamic, yarn, longrope, llama3, ...), a partial rotary factor, per-layer-type parameters or any
 * unknown key is an error naming the field: ignoring one would compute a different model without a word. Two
 * stated bases that disagree are an error too; none stated is transformers' default, 10,000.
 */
export function readRopeTheta(c: Json, source: string): number {
  const stated: [string, number][] = [];
  if (c.rope_theta !== undefined && c.rope_theta !== null) {
    stated.push(['rope_theta', positiveTheta(c.rope_theta, 'rope_theta', source)]);
  }
  wholeHead(c.partial_rotary_factor, 'partial_rotary_factor', source);
  for (const field of ['rope_parameters', 'rope_scaling']) {
    const value = c[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`${source}: field "${field}" must be an object or null, got ${JSON.stringify(value)}`);
    }
    const params = value as Json;
    for (const typeKey of ['rope_type', 'type']) {
      const type = params[typeKey];
      if (type !== undefined && type !== 'default') {
        throw new Error(
          `${source}: ${field}.${typeKey} ${JSON.stringify(type)} is not supported (this decoder implements ` +
            'only "default" RoPE)',
        );
      }
    }
    for (const key of Object.keys(params)) {
      if (!DEFAULT_ROPE_KEYS.has(key)) {
        throw new Error(
          `${source}: ${field}.${key} is not supported (a "default" RoPE takes only rope_type and rope_theta)`,
        );
      }
    }
    wholeHead(params.partial_rotary_factor, `${field}.partial_rotary_factor`, source);
    if (params.rope_theta !== undefined && params.rope_theta !== null) {
      stated.push([`${field}.rope_theta`, positiveTheta(params.rope_theta, `${field}.rope_theta`, source)]);
    }
  }
  const [first, ...others] = stated;
  const conflict = others.find(([, theta]) => theta !== first![1]);
  if (conflict !== undefined) {
    throw new Error(
      `${source}: ${first![0]} ${first![1]} and ${conflict[0]} ${conflict[1]} disagree (state the RoPE base once)`,
    );
  }
  return first?.[1] ?? DEFAULT_ROPE_THETA;
}

/** transformers 5 lists each layer's attention in `layer_types`; the decoder has only full attention. */
export function checkFullAttention(c: Json, source: string): void {
  const types = c.layer_types;
  if (types === undefined || types === null) return;
  if (!Array.isArray(types)) {
    throw new Error(`${source}: field "layer_types" must be a list, got ${JSON.stringify(types)}`);
  }
  const bad = types.findIndex((type) => type !== 'full_attention');
  if (bad >= 0) {
    throw new Error(
      `${source}: layer_types[${bad}] ${JSON.stringify(types[bad])} is not supported (only "full_attention")`,
    );
  }
}
