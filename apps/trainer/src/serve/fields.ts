import { ServeRequestError } from './errors.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the fields of one JSON object of a request. Every read names the field (`prefix` + key, e.g.
 * "sampling_params.top_k") in the 400 it throws for a wrong value; null counts as absent, as in the Python
 * servers, where it means "the default".
 */
export class RequestFields {
  private constructor(
    private readonly object: Json,
    private readonly prefix: string,
  ) {}

  /** The fields of `value`, which must be a JSON object; `param` names it in the error (null: the body). */
  static of(value: unknown, param: string | null): RequestFields {
    if (!isObject(value)) {
      throw new ServeRequestError(`${param ?? 'the request body'} must be a JSON object`, param);
    }
    return new RequestFields(value, param === null ? '' : `${param}.`);
  }

  /** The fields of the nested object `key`; an absent one reads as empty (every field at its default). */
  nested(key: string): RequestFields {
    return this.has(key)
      ? RequestFields.of(this.object[key], this.param(key))
      : new RequestFields({}, this.param(key));
  }

  param(key: string): string {
    return `${this.prefix}${key}`;
  }

  has(key: string): boolean {
    return this.object[key] !== undefined && this.object[key] !== null;
  }

  raw(key: string): unknown {
    return this.object[key];
  }

  fail(key: string, message: string): never {
    throw new ServeRequestError(`${this.param(key)}: ${message}`, this.param(key));
  }

  integer(key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
      this.fail(key, `expected an integer ${range}, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  optionalInteger(key: string): number | undefined {
    return this.has(key) ? this.integer(key, 0, Number.MIN_SAFE_INTEGER) : undefined;
  }

  /** A number for which `ok` holds; `expectation` says which numbers those are. */
  number(key: string, fallback: number, ok: (x: number) => boolean, expectation: string): number {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (typeof value !== 'number' || !ok(value))
      this.fail(key, `expected ${expectation}, got ${JSON.stringify(value)}`);
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (typeof value !== 'boolean') this.fail(key, `expected true or false, got ${JSON.stringify(value)}`);
    return value;
  }

  /** A string or a list of strings, none empty (an empty stop string would stop before the first token). */
  strings(key: string): string[] {
    if (!this.has(key)) return [];
    const value = this.object[key];
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || !list.every((s): s is string => typeof s === 'string' && s.length > 0)) {
      this.fail(key, `expected a non-empty string or a list of them, got ${JSON.stringify(value)}`);
    }
    return list;
  }

  /** A list of token ids in [0, vocabSize). */
  tokenIds(key: string, vocabSize: number): number[] {
    if (!this.has(key)) return [];
    return checkTokenIds(this.object[key], this.param(key), vocabSize);
  }
}

/** `value` as token ids in [0, vocabSize), or a 400 naming `param` and the first bad entry. */
export function checkTokenIds(value: unknown, param: string, vocabSize: number): number[] {
  if (!Array.isArray(value)) {
    throw new ServeRequestError(
      `${param}: expected a list of token ids, got ${JSON.stringify(value)}`,
      param,
    );
  }
  const bad = value.findIndex(
    (id) => typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= vocabSize,
  );
  if (bad >= 0) {
    throw new ServeRequestError(
      `${param}[${bad}]: ${JSON.stringify(value[bad])} is not a token id of this model (integers in [0, ${vocabSize}))`,
      param,
    );
  }
  return value as number[];
}
