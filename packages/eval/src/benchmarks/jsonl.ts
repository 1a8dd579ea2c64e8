import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { BenchmarkFormatError } from '@taorl/eval';

/** A JSON object read from one line of a JSONL file, with accessors whose errors name file, line and field. */
export interface JsonlRow {
  readonly line: number;
  readonly value: Record<string, unknown>;
  string(field: string): string;
  optionalString(field: string): string | undefined;
}

/** The rows of a .jsonl file, or of a gzipped one (.jsonl.gz, as Hugging Face datasets are often stored). */
export function readJsonl(path: string): JsonlRow[] {
  let text: string;
  try {
    const bytes = readFileSync(path);
    text = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  } catch (error) {
    throw new BenchmarkFormatError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const rows: JsonlRow[] = [];
  text.split('\n').forEach((source, index) => {
    if (source.trim() === '') return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new BenchmarkFormatError(`${path}:${line}: not JSON (${(error as Error).message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new BenchmarkFormatError(`${path}:${line}: expected a JSON object`);
    }
    rows.push(makeRow(path, line, value as Record<string, unknown>));
  });
  return rows;
}

function makeRow(path: string, line: number, value: Record<string, unknown>): JsonlRow {
  const optionalString = (field: string): string | undefined => {
    const raw = value[field];
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'string') return raw;
    if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
    throw new BenchmarkFormatError(`${path}:${line}: field "${field}" must be a string or number`);
  };
  return {
    line,
    value,
    optionalString,
    string: (field) => {
      const result = optionalString(field);
      if (result === undefined) throw new BenchmarkFormatError(`${path}:${line}: missing field "${field}"`);
      return result;
    },
  };
}
