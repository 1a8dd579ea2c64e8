import { open } from 'node:fs/promises';

/** Element types this reader converts to float32. */
export type FloatDtype = 'F32' | 'F16' | 'BF16';

const BYTES_PER_ELEMENT: Record<string, number> = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
  F8_E4M3: 1,
  F8_E5M2: 1,
};

/** Where one tensor lies in a safetensors file. */
export interface TensorLocation {
  name: string;
  file: string;
  dtype: string;
  shape: number[];
  /** Absolute byte range in the file. */
  begin: number;
  end: number;
}

/**
 * Reads a safetensors header (format: u64 little-endian header length, a JSON object
 * {name: {dtype, shape, data_offsets}} plus optional "__metadata__", then the raw little-endian data;
 * https://github.com/huggingface/safetensors). Only the header is read; tensors are read on demand.
 */
export async function readSafetensorsHeader(file: string): Promise<TensorLocation[]> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const lengthBytes = Buffer.alloc(8);
    if (size < 8 || (await handle.read(lengthBytes, 0, 8, 0)).bytesRead !== 8) {
      throw new Error(`${file}: too short to be a safetensors file`);
    }
    const headerLength = Number(lengthBytes.readBigUInt64LE(0));
    // The length is not quoted: for a file that is not safetensors it is the file's first 8 bytes.
    if (headerLength > size - 8)
      throw new Error(`${file}: the header length exceeds the file size (${size} bytes)`);
    const headerBytes = Buffer.alloc(headerLength);
    await handle.read(headerBytes, 0, headerLength, 8);
    let header: unknown;
    try {
      header = JSON.parse(headerBytes.toString('utf8'));
    } catch {
      // Not the parser's message, which quotes the bytes.
      throw new Error(`${file}: header is not valid JSON`);
    }
    if (typeof header !== 'object' || header === null)
      throw new Error(`${file}: header is not a JSON object`);
    const dataStart = 8 + headerLength;
    const locations: TensorLocation[] = [];
    for (const [name, value] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      locations.push(parseEntry(file, name, value, dataStart, size));
    }
    return locations;
  } finally {
    await handle.close();
  }
}

function parseEntry(
  file: string,
  name: string,
  value: unknown,
  dataStart: number,
  size: number,
): TensorLocation {
  const entry = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  const { dtype, shape, data_offsets: offsets } = entry;
  const validShape = Array.isArray(shape) && shape.every((d) => Number.isInteger(d) && d >= 0);
  const validOffsets =
    Array.isArray(offsets) && offsets.length === 2 && offsets.every((o) => Number.isInteger(o));
  if (typeof dtype !== 'string' || !validShape || !validOffsets) {
    throw new Error(
      `${file}: tensor "${name}" has a malformed header entry (expected {dtype, shape, data_offsets})`,
    );
  }
  const [from, to] = offsets as [number, number];
  const begin = dataStart + from;
  const end = dataStart + to;
  const elements = (shape as number[]).reduce((a, b) => a * b, 1);
  const width = BYTES_PER_ELEMENT[dtype];
  if (width !== undefined && (to - from !== elements * width || end > size || from > to)) {
    throw new Error(
      `${file}: tensor "${name}" data_offsets [${from}, ${to}] do not hold ${elements} ${dtype} values within the file`,
    );
  }
  return { name, file, dtype, shape: shape as number[], begin, end };
}

/** Reads one tensor as float32; F16 and BF16 are widened exactly. */
export async function readTensor(location: TensorLocation): Promise<Float32Array> {
  const { file, name, dtype, begin, end } = location;
  if (dtype !== 'F32' && dtype !== 'F16' && dtype !== 'BF16') {
    throw new Error(`${file}: tensor "${name}" has dtype ${dtype}; supported dtypes are F32, F16 and BF16`);
  }
  const bytes = Buffer.alloc(end - begin);
  const handle = await open(file, 'r');
  try {
    await handle.read(bytes, 0, bytes.length, begin);
  } finally {
    await handle.close();
  }
  return toFloat32(bytes, dtype);
}

// Safetensors data is little-endian, as are the hosts tfjs runs on (x86-64, arm64), so typed-array views read it
// directly. Buffer.alloc gives each buffer its own zero-offset ArrayBuffer, so the views are aligned.
function toFloat32(bytes: Buffer, dtype: FloatDtype): Float32Array {
  if (dtype === 'F32') return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const halves = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
  const out = new Float32Array(halves.length);
  if (dtype === 'BF16') {
    // bfloat16 is the upper half of a float32.
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < halves.length; i++) bits[i] = halves[i]! << 16;
    return out;
  }
  for (let i = 0; i < halves.length; i++) out[i] = halfToFloat(halves[i]!);
  return out;
}

/** IEEE 754 binary16 to a JS number, including subnormals, infinities and NaN. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** A float32 tensor to write. */
export interface NamedTensor {
  name: string;
  shape: readonly number[];
  data: Float32Array;
}

/** Encodes tensors as one F32 safetensors file, in the given order, 8-byte aligned as the format recommends. */
export function encodeSafetensors(
  tensors: readonly NamedTensor[],
  metadata: Record<string, string> = {},
): Buffer {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const t of tensors) {
    const elements = t.shape.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length) {
      throw new Error(
        `tensor "${t.name}": shape [${t.shape}] needs ${elements} values, got ${t.data.length}`,
      );
    }
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + 4 * elements] };
    offset += 4 * elements;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + offset);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  let at = 8 + headerBytes.length;
  for (const t of tensors) {
    Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).copy(out, at);
    at += t.data.byteLength;
  }
  return out;
}
