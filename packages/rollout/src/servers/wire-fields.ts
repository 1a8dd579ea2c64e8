import { RemotePolicyError } from './remote-error.js';

/**
 * Typed reads of a server's JSON answer. Each read names the field's path (`choices[0].token_ids[3]`) and the
 * request URL in its error, so a wrong server version or flag shows up as one clear line instead of NaNs in a
 * training batch. `hint` says what to change when the field is missing.
 */
export class WireFields {
  constructor(readonly url: string) {}

  fail(path: string, problem: string, hint?: string): never {
    throw new RemotePolicyError(this.url, `${path} ${problem}${hint ? ` — ${hint}` : ''}`);
  }

  object(value: unknown, path: string, hint?: string): Record<string, unknown> {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
    return this.wrongType(value, path, 'an object', hint);
  }

  array(value: unknown, path: string, hint?: string): unknown[] {
    if (Array.isArray(value)) return value;
    return this.wrongType(value, path, 'an array', hint);
  }

  /** An array that must have exactly `length` entries, as `other` (a path) has. */
  arrayOfLength(value: unknown, path: string, length: number, other: string, hint?: string): unknown[] {
    const items = this.array(value, path, hint);
    if (items.length !== length) {
      this.fail(path, `has ${items.length} entries but ${other} has ${length}`, hint);
    }
    return items;
  }

  number(value: unknown, path: string, hint?: string): number {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    return this.wrongType(value, path, 'a finite number', hint);
  }

  string(value: unknown, path: string, hint?: string): string {
    if (typeof value === 'string') return value;
    return this.wrongType(value, path, 'a string', hint);
  }

  /** A token id in [0, vocabSize). */
  tokenId(value: unknown, path: string, vocabSize: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return this.wrongType(value, path, 'an integer token id');
    }
    if (value < 0 || value >= vocabSize) {
      this.fail(
        path,
        `is ${value}, outside the vocabulary [0, ${vocabSize}) — does the server run the same model?`,
      );
    }
    return value;
  }

  /** A log-probability: finite and not above 0 (a rounding excess up to 1e-4 is clamped to 0). */
  logProb(value: unknown, path: string, hint?: string): number {
    const logProb = this.number(value, path, hint);
    if (logProb > 1e-4) this.fail(path, `is ${logProb}, not a log-probability (must be <= 0)`);
    return Math.min(logProb, 0);
  }

  private wrongType(value: unknown, path: string, expected: string, hint?: string): never {
    if (value === undefined || value === null) return this.fail(path, 'missing', hint);
    const kind = Array.isArray(value) ? 'an array' : typeof value;
    return this.fail(path, `must be ${expected}, got ${kind} ${preview(value)}`, hint);
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
