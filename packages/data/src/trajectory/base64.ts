import { fromByteArray, toByteArray } from 'base64-js';

/** The typed arrays a Trajectory stores, by field name. */
export type TypedColumn = Int32Array | Uint8Array | Float32Array;
type ColumnType = typeof Int32Array | typeof Uint8Array | typeof Float32Array;

const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// base64-js rather than Node's Buffer, so this module runs anywhere (docs/benchmarks/data.md: its rates against
// Buffer), and rather than btoa/atob, which take strings of bytes and are slower still in Node.
// base64-js reads characters outside the alphabet as zero bits, so the text is checked first (one character class:
// a grouped pattern overflows V8's regexp stack on a column of a few megabytes).
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of standard base64 text, or undefined when the text is not base64. */
function fromBase64(text: string): Uint8Array | undefined {
  return text.length % 4 === 0 && BASE64_CHARACTERS.test(text) ? toByteArray(text) : undefined;
}

/** Base64 of the array's little-endian bytes: exact for every value, NaN payloads and -0 included. */
export function encodeColumn(column: TypedColumn): string {
  if (hostIsLittleEndian || column.BYTES_PER_ELEMENT === 1) {
    return fromByteArray(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  }
  const bytes = new Uint8Array(column.byteLength);
  const view = new DataView(bytes.buffer);
  column.forEach((x, i) => {
    if (column instanceof Float32Array) view.setFloat32(i * 4, x, true);
    else view.setInt32(i * 4, x, true);
  });
  return fromByteArray(bytes);
}

/** Inverse of encodeColumn; a string saying what is wrong when the text is not base64 of whole elements. */
export function decodeColumn<T extends ColumnType>(text: string, type: T): InstanceType<T> | string {
  const bytes = fromBase64(text);
  if (bytes === undefined) return 'is not base64 text';
  if (bytes.byteLength % type.BYTES_PER_ELEMENT !== 0)
    return `byte length is not a multiple of ${type.BYTES_PER_ELEMENT}`;
  const column = new type(bytes.byteLength / type.BYTES_PER_ELEMENT) as InstanceType<T>;
  if (hostIsLittleEndian || type.BYTES_PER_ELEMENT === 1) {
    new Uint8Array(column.buffer).set(bytes);
    return column;
  }
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < column.length; i++) {
    column[i] = type === Float32Array ? view.getFloat32(i * 4, true) : view.getInt32(i * 4, true);
  }
  return column;
}
