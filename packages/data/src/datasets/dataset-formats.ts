import type { Conversation } from '../chat/types';
import type { DataLocation } from '../errors';
import { parseConversation, parseQaPair, parseRlPrompt, type QaPair, type RlPrompt } from './formats';

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
