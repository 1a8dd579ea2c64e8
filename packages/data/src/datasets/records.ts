import { extname } from 'node:path';
import { DataError, type DataLocation } from '@taorl/data';
import type { AsyncBuffer, FileMetaData } from 'hyparquet';
import { readLines } from './lines';

/** One raw record of a dataset file and where it came from. */
export interface LocatedRecord {
  record: unknown;
  location: DataLocation;
}

/**
 * Parquet int64 values arrive as bigint; those that fit a double exactly become numbers, the rest stay bigint.
 * Values without a bigint inside are returned as they are (no copy).
 */
function plainValues(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array || value instanceof Date)
    return value;
  if (Array.isArray(value)) {
    const mapped = value.map(plainValues);
    return mapped.some((inner, i) => inner !== value[i]) ? mapped : value;
  }
  const entries = Object.entries(value);
  const mapped = entries.map(([key, inner]) => [key, plainValues(inner)] as const);
  return mapped.some(([, inner], i) => inner !== entries[i]?.[1]) ? Object.fromEntries(mapped) : value;
}

async function* jsonlRecords(path: string): AsyncGenerator<LocatedRecord> {
  for await (const { line, text } of readLines(path)) {
    const location = { file: path, line };
    try {
      yield { record: JSON.parse(text), location };
    } catch (error) {
      if (error instanceof SyntaxError) throw new DataError(`not valid JSON (${error.message})`, location);
      throw error;
    }
  }
}

/** Reads one row group at a time, so memory holds one group's rows, not the file's. */
async function* parquetRecords(path: string): AsyncGenerator<LocatedRecord> {
  // hyparquet is ESM-only: a dynamic import keeps the CommonJS build working on Node 20.11, which cannot
  // require() an ES module (Node 20.19 can).
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
  let file: AsyncBuffer;
  let metadata: FileMetaData;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (error) {
    throw new DataError(`cannot read as parquet (${(error as Error).message})`, { file: path });
  }
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd });
    } catch (error) {
      throw new DataError(`cannot decode rows ${rowStart + 1}-${rowEnd} (${(error as Error).message})`, {
        file: path,
      });
    }
    for (let i = 0; i < rows.length; i++) {
      yield { record: plainValues(rows[i]), location: { file: path, row: rowStart + i + 1 } };
    }
    rowStart = rowEnd;
  }
}

/** Streams the records of a .jsonl / .json-lines or .parquet file, each with its file and line (or row). */
export function readRecords(path: string): AsyncGenerator<LocatedRecord> {
  const extension = extname(path).toLowerCase();
  if (extension === '.parquet') return parquetRecords(path);
  if (extension === '.jsonl' || extension === '.ndjson') return jsonlRecords(path);
  throw new DataError(`unknown dataset file type "${extension}"; expected .jsonl, .ndjson or .parquet`, {
    file: path,
  });
}
