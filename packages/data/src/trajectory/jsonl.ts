import { DataError, type DataLocation } from '../errors';
import { decodeColumn, encodeColumn } from './base64';
import type { Trajectory } from './types';
import { type ValidateTrajectoryOptions, validateTrajectory } from './validate';

const COLUMNS = {
  promptIds: Int32Array,
  responseIds: Int32Array,
  lossMask: Uint8Array,
  oldLogProbs: Float32Array,
  entropies: Float32Array,
} as const;
type ColumnName = keyof typeof COLUMNS;
const COLUMN_NAMES = Object.keys(COLUMNS) as ColumnName[];

/**
 * One JSON line for a trajectory. The typed-array fields are written as base64 strings of their little-endian
 * bytes (exact and ~3x smaller than number arrays); every other field, including fields beyond the Trajectory
 * interface, is written as plain JSON.
 */
export function serializeTrajectory(trajectory: Trajectory): string {
  const record: Record<string, unknown> = { ...trajectory };
  for (const name of COLUMN_NAMES) record[name] = encodeColumn(trajectory[name]);
  return JSON.stringify(record);
}

/** Parses one line written by serializeTrajectory, validating it; errors name the location when given. */
export function parseTrajectory(line: string, options: ValidateTrajectoryOptions = {}): Trajectory {
  const location: DataLocation = options.location ?? {};
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (error) {
    throw new DataError(`not valid JSON (${(error as Error).message})`, location);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new DataError('a trajectory line must hold a JSON object', location);
  }
  const fields = record as Record<string, unknown>;
  for (const name of COLUMN_NAMES) {
    const text = fields[name];
    if (typeof text !== 'string') {
      throw new DataError(`must be a base64 string of ${COLUMNS[name].name} bytes`, {
        ...location,
        field: name,
      });
    }
    const column = decodeColumn(text, COLUMNS[name]);
    if (typeof column === 'string') throw new DataError(column, { ...location, field: name });
    fields[name] = column;
  }
  return validateTrajectory(fields, { ...options, location });
}
