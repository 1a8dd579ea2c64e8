import type { Conversation } from '../chat/types';
import type { DataLocation } from '../errors';
import { parseConversation, parseQaPair, parseRlPrompt, type QaPair, type RlPrompt } from './formats';
import { readRecords } from './records';

/** The record type each dataset format yields. */
export interface DatasetRecords {
  verl: RlPrompt;
  sft: Conversation;
  qa: QaPair;
}

export type DatasetFormat = keyof DatasetRecords;

/** The record parsers by format name. */
export const DATASET_FORMATS: {
  [F in DatasetFormat]: (value: unknown, location: DataLocation) => DatasetRecords[F];
} = {
  verl: parseRlPrompt,
  sft: parseConversation,
  qa: parseQaPair,
};

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
