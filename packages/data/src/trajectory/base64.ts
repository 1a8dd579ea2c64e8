import { Buffer } from 'node:buffer';

/** The typed arrays a Trajectory stores, by field name. */
export type TypedColumn = Int32Array | Uint8Array | Float32Array;
type ColumnType = typeof Int32Array | typeof Uint8Array | typeof Float32Array;

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Base64 of the array's little-endian bytes: exact for every value, NaN payloads and -0 included. */
export function encodeColumn(column: TypedColumn): string {
  if (hostIsLittleEndian || column.BYTES_PER_ELEMENT === 1) {
    return Buffer.from(column.buffer, column.byteOffset, column.byteLength).toString('base64');
  }
  const bytes = Buffer.alloc(column.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  column.forEach((x, i) => {
    if (column instanceof Float32Array) view.setFloat32(i * 4, x, true);
    else view.setInt32(i * 4, x, true);
  });
  return bytes.toString('base64');
}

/** Inverse of encodeColumn; returns undefined when the byte count does not fit the element size. */
export function decodeColumn<T extends ColumnType>(text: string, type: T): InstanceType<T> | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0) return undefined;
  const column = new type(bytes.byteLength / type.BYTES_PER_ELEMENT) as InstanceType<T>;
  if (hostIsLittleEndian || type.BYTES_PER_ELEMENT === 1) {
    new Uint8Array(column.buffer).set(bytes);
    return column;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < column.length; i++) {
    column[i] = type === Float32Array ? view.getFloat32(i * 4, true) : view.getInt32(i * 4, true);
  }
  return column;
}
