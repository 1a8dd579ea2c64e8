// The safetensors format (https://github.com/huggingface/safetensors): a u64 little-endian header length, a JSON
// object {name: {dtype, shape, data_offsets}} plus an optional "__metadata__" (string to string), then the raw
// little-endian data. Bytes in, bytes out: reading a file is the './node' entry's (files/safetensors-file.ts).

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

/** A safetensors file's bytes, parsed: its tensors' locations and their values. */
export interface ParsedSafetensors {
  /** The name errors give (a path, a URL). */
  file: string;
  tensors: TensorLocation[];
  /** The header's `__metadata__` (string to string), empty when it has none. */
  metadata: Record<string, string>;
  /** Where the data section starts (after the length and the header). */
  dataStart: number;
  /** One tensor as float32 (F16 and BF16 widened exactly), from the bytes parsed. */
  read(location: TensorLocation): Float32Array;
}

/**
 * Parses safetensors bytes; `file` names them in errors. Every data_offsets pair must lie in the data section, no
 * two overlapping.
 */
export function parseSafetensors(file: string, bytes: Uint8Array): ParsedSafetensors {
  const size = bytes.length;
  if (size < 8) throw new Error(`${file}: too short to be a safetensors file`);
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  // The length is not quoted: for a file that is not safetensors it is the file's first 8 bytes.
  if (headerLength > size - 8)
    throw new Error(`${file}: the header length exceeds the file size (${size} bytes)`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  } catch {
    // Not the parser's message, which quotes the bytes.
    throw new Error(`${file}: header is not valid JSON`);
  }
  if (typeof header !== 'object' || header === null) throw new Error(`${file}: header is not a JSON object`);
  const dataStart = 8 + headerLength;
  const tensors: TensorLocation[] = [];
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    tensors.push(parseEntry(file, name, value, dataStart, size));
  }
  checkNoOverlap(file, tensors, dataStart);
  return {
    file,
    tensors,
    metadata: metadataOf((header as Record<string, unknown>).__metadata__),
    dataStart,
    read: (location) => toFloat32(location, bytes),
  };
}

/** The format allows only string values in `__metadata__`; anything else there is left out. */
function metadataOf(raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null) return {};
  return Object.fromEntries(
    Object.entries(raw).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
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
  // Offsets count from the end of the header: a negative one would read the header's own bytes as weights.
  const inData = from >= 0 && from <= to && end <= size;
  if (!inData || (width !== undefined && to - from !== elements * width)) {
    throw new Error(
      `${file}: tensor "${name}" data_offsets [${from}, ${to}] do not hold ${elements} ${dtype} values within ` +
        `the file's data section (${size - dataStart} bytes)`,
    );
  }
  return { name, file, dtype, shape: shape as number[], begin, end };
}

/** Two tensors sharing bytes would make one a view of the other's values: the header is not what was saved. */
function checkNoOverlap(file: string, tensors: readonly TensorLocation[], dataStart: number): void {
  const ordered = tensors.filter((t) => t.end > t.begin).sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < ordered.length; i++) {
    const [a, b] = [ordered[i - 1]!, ordered[i]!];
    if (b.begin < a.end) {
      throw new Error(
        `${file}: tensors "${a.name}" and "${b.name}" overlap (data_offsets [${a.begin - dataStart}, ` +
          `${a.end - dataStart}] and [${b.begin - dataStart}, ${b.end - dataStart}])`,
      );
    }
  }
}

// Safetensors data is little-endian, as are the hosts tfjs runs on (x86-64, arm64), so typed-array views read it
// directly. Each tensor's bytes are copied out: aligned, and not keeping the whole file alive.
function toFloat32(location: TensorLocation, file: Uint8Array): Float32Array {
  const { file: path, name, dtype, begin, end } = location;
  if (dtype !== 'F32' && dtype !== 'F16' && dtype !== 'BF16') {
    throw new Error(`${path}: tensor "${name}" has dtype ${dtype}; supported dtypes are F32, F16 and BF16`);
  }
  const bytes = file.buffer.slice(file.byteOffset + begin, file.byteOffset + end);
  if (dtype === 'F32') return new Float32Array(bytes);
  const halves = new Uint16Array(bytes);
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
): Uint8Array {
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
  const encoder = new TextEncoder();
  json += ' '.repeat((8 - ((8 + encoder.encode(json).length) % 8)) % 8);
  const headerBytes = encoder.encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const t of tensors) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}
