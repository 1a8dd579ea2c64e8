import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  parseTrajectory,
  serializeTrajectory,
  type Trajectory,
  type ValidateTrajectoryOptions,
} from '@taorl/data';
import { readLines } from '../datasets/lines';

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
