/** Where a bad value was found: a file, its line or row, and the field path inside the record. */
export interface DataLocation {
  file?: string;
  /** 1-based line of a text file (JSONL). */
  line?: number;
  /** 1-based row of a columnar file (parquet). */
  row?: number;
  field?: string;
}

function describe(location: DataLocation): string {
  const parts: string[] = [];
  if (location.file !== undefined) {
    parts.push(location.line !== undefined ? `${location.file}:${location.line}` : location.file);
  } else if (location.line !== undefined) {
    parts.push(`line ${location.line}`);
  }
  if (location.row !== undefined) parts.push(`row ${location.row}`);
  if (location.field !== undefined) parts.push(`field "${location.field}"`);
  return parts.join(', ');
}

/**
 * Bad input data. The message starts with the location (file:line, field) so a user can open the exact spot;
 * the structured location is kept on the error for programs.
 */
export class DataError extends Error {
  readonly location: DataLocation;

  constructor(message: string, location: DataLocation = {}) {
    const where = describe(location);
    super(where ? `${where}: ${message}` : message);
    this.name = 'DataError';
    this.location = location;
  }
}
