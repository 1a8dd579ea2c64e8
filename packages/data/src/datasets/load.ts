import { DATASET_FORMATS, type DataLocation, type DatasetFormat, type DatasetRecords } from '@taorl/data';
import { readRecords } from './records';

/**
 * Streams the records of a JSONL or parquet dataset in one of the known formats. A bad record throws a
 * DataError naming the file, the line (JSONL) or row (parquet) and the field.
 */
export async function* loadDataset<F extends DatasetFormat>(
  path: string,
  format: F,
): AsyncGenerator<DatasetRecords[F]> {
  const parse = DATASET_FORMATS[format] as
    | ((value: unknown, location: DataLocation) => DatasetRecords[F])
    | undefined;
  if (!parse) {
    throw new Error(
      `unknown dataset format "${String(format)}"; expected one of ${Object.keys(DATASET_FORMATS).join(', ')}`,
    );
  }
  for await (const { record, location } of readRecords(path)) yield parse(record, location);
}
