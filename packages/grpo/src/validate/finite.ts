/**
 * Throws naming the first non-finite entry of a row-major [rows, columns] array: NaN or Inf advantages or
 * log-probs would turn the loss and every weight they touch into NaN.
 */
export function assertFinite(where: string, name: string, values: ArrayLike<number>, columns: number): void {
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (!Number.isFinite(value)) {
      const [row, column] = [Math.floor(index / columns), index % columns];
      throw new Error(
        `${where}: ${name}[${index}] (row ${row}, column ${column}) is ${value}; ${name} must be finite at every position (use 0 where the loss mask is 0)`,
      );
    }
  }
}
