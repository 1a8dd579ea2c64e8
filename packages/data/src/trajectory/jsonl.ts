import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readLines } from '../datasets/lines';
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
    if (!column) {
      throw new DataError(`byte length is not a multiple of ${COLUMNS[name].BYTES_PER_ELEMENT}`, {
        ...location,
        field: name,
      });
    }
    fields[name] = column;
  }
  return validateTrajectory(fields, { ...options, location });
}

/** Streams the trajectories of a JSONL file; a bad line throws a DataError naming the file and line. */
export async function* readTrajectories(
  path: string,
  options: Omit<ValidateTrajectoryOptions, 'location'> = {},
): AsyncGenerator<Trajectory> {
  for await (const { line, text } of readLines(path)) {
    yield parseTrajectory(text, { ...options, location: { file: path, line } });
  }
}

/** Writes trajectories as JSONL (one serializeTrajectory line each), with back-pressure; returns the count. */
export async function writeTrajectories(
  path: string,
  trajectories: Iterable<Trajectory> | AsyncIterable<Trajectory>,
): Promise<number> {
  let count = 0;
  async function* lines() {
    for await (const trajectory of trajectories) {
      count++;
      yield `${serializeTrajectory(trajectory)}\n`;
    }
  }
  await pipeline(Readable.from(lines()), createWriteStream(path, { encoding: 'utf8' }));
  return count;
}
