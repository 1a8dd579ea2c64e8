/** A row-major [rows, columns] array of numbers. */
export type RowMajorArray = Int32Array | Uint8Array | Float32Array;

/**
 * The trainer's one padded-batch layout: row r's values are written into the row-major [rows, columns] array
 * `into` from column `starts[r]` (default 0, right padding; generation's prefill starts each row after its left
 * padding), and every other entry keeps the value `into` was filled with. The RL learner's batch, SFT's
 * target-aligned batch and the generation prefill are all built this way. Returns `into`.
 */
export function padRows<A extends RowMajorArray>(
  into: A,
  columns: number,
  rows: readonly ArrayLike<number>[],
  starts?: readonly number[],
): A {
  rows.forEach((values, row) => {
    const start = starts?.[row] ?? 0;
    if (values.length > 0 && start + values.length > columns) {
      throw new RangeError(
        `padRows: row ${row} has ${values.length} values from column ${start}, past the ${columns} columns`,
      );
    }
    into.set(values, row * columns + start);
  });
  return into;
}
