import { DataError, type DataLocation } from '../errors';

/** A JSON object as read from a record: its field names and their values, not yet checked. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Reads typed fields of one record, throwing DataErrors that carry the record's location and the field path. */
export class FieldReader {
  constructor(
    readonly location: DataLocation,
    readonly prefix = '',
  ) {}

  /** Throws a DataError at `field` under this reader's prefix ('' = the value the prefix names). */
  fail(field: string, message: string): never {
    const path = field === '' ? this.prefix.replace(/\.$/, '') : this.prefix + field;
    throw new DataError(message, path === '' ? this.location : { ...this.location, field: path });
  }

  object(value: unknown, field = ''): JsonObject {
    if (!isObject(value)) this.fail(field, `expected an object, got ${kind(value)}`);
    return value;
  }

  string(record: JsonObject, field: string): string {
    const value = record[field];
    if (typeof value !== 'string')
      this.fail(field, `expected a string, got ${value === undefined ? 'nothing' : kind(value)}`);
    return value;
  }

  optionalString(record: JsonObject, field: string): string | undefined {
    return record[field] === undefined || record[field] === null ? undefined : this.string(record, field);
  }

  /** A string, or a finite number written as text (gold answers are often stored as numbers). */
  answer(record: JsonObject, field: string): string {
    const value = record[field];
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'bigint') return value.toString();
    return this.string(record, field);
  }

  array(record: JsonObject, field: string): unknown[] {
    const value = record[field];
    if (!Array.isArray(value))
      this.fail(field, `expected an array, got ${value === undefined ? 'nothing' : kind(value)}`);
    return value;
  }

  /** An array stored either as such or as a JSON string (parquet datasets often do the latter). */
  arrayOrJson(record: JsonObject, field: string): unknown[] {
    const value = record[field];
    if (typeof value !== 'string') return this.array(record, field);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      this.fail(field, `holds a string that is not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed)) this.fail(field, `holds JSON that is not an array but ${kind(parsed)}`);
    return parsed;
  }

  at(field: string): FieldReader {
    return new FieldReader(this.location, `${this.prefix}${field}.`);
  }
}
