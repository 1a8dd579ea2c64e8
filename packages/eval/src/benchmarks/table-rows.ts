import { readFileSync } from 'node:fs';
import { BenchmarkFormatError } from '@taorl/eval';
import { readJsonl } from './jsonl';

/** One record of a data file, with where it came from for error messages ("file.csv:12", "file.parquet: row 3"). */
export interface TableRow {
  readonly where: string;
  readonly value: Readonly<Record<string, unknown>>;
}

/** The records of a .jsonl (.jsonl.gz), .csv (with a header line) or .parquet file, chosen by the extension. */
export async function readTableRows(path: string): Promise<TableRow[]> {
  if (path.endsWith('.jsonl') || path.endsWith('.jsonl.gz'))
    return readJsonl(path).map((row) => ({ where: `${path}:${row.line}`, value: row.value }));
  if (path.endsWith('.csv')) return readCsv(path);
  if (path.endsWith('.parquet')) return readParquet(path);
  throw new BenchmarkFormatError(`${path}: unknown file type; expected .jsonl, .jsonl.gz, .csv or .parquet`);
}

async function readCsv(path: string): Promise<TableRow[]> {
  // csv-parse's ESM build is the one every Node 20 can load from both of this package's builds.
  const { parse } = await import('csv-parse/sync');
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(readFileSync(path, 'utf8'), { columns: true, info: true, bom: true }) as typeof records;
  } catch (error) {
    throw new BenchmarkFormatError(`cannot read CSV ${path}: ${(error as Error).message}`);
  }
  return records.map(({ record, info }) => ({ where: `${path}:${info.lines}`, value: record }));
}

/** The rows of a parquet file, whatever its name. */
export async function readParquet(path: string): Promise<TableRow[]> {
  // hyparquet is ESM-only: a dynamic import keeps the CommonJS build of this package loadable.
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  try {
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(path) });
    return rows.map((value, index) => ({ where: `${path}: row ${index}`, value }));
  } catch (error) {
    throw new BenchmarkFormatError(`cannot read parquet ${path}: ${(error as Error).message}`);
  }
}

/** A string field of a row, or an error naming the file, the row and the field. */
export function stringField(row: TableRow, field: string): string {
  const value = row.value[field];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new BenchmarkFormatError(
    `${row.where}: field "${field}" ${value === undefined ? 'is missing' : 'must be a string'}`,
  );
}
