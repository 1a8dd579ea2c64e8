import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeSafetensors, type NamedTensor, type ParsedSafetensors, parseSafetensors } from '@taorl/model';

/** A safetensors file read whole, at one instant: its tensors' locations and their values. */
export interface SafetensorsFile extends ParsedSafetensors {
  /** The SHA-256 of the bytes read (hex), computed on demand: the file as it was parsed, not as it is now. */
  sha256(): string;
}

/**
 * The metadata key under which `encodeSafetensorsFile` records the SHA-256 (hex) of the data section. A read whose
 * data does not hash to it is a torn read (the file was rewritten while it was read) and is read again.
 */
export const DATA_SHA256 = 'taorl.data_sha256';

/**
 * A file changed less than this long before a read started may have changed during it unseen: file times come from
 * the kernel's coarse clock (one tick, at most 10 ms), so a write in the same tick as the read leaves them equal.
 * Two reads that must agree are also this far apart.
 */
const QUIET_MS = 50;
/** Whole reads of a file that keeps changing before the reader gives up. */
const MAX_READS = 40;
/** How long a reader waits for a file being written to stay unchanged before it gives up. */
const SETTLE_MS = 10_000;

/**
 * Encodes tensors as `encodeSafetensors` does, with the SHA-256 of the data section in the metadata (`DATA_SHA256`),
 * so that `readSafetensors` can tell this file read whole from a mix of two versions whatever the writer's timing.
 */
export function encodeSafetensorsFile(
  tensors: readonly NamedTensor[],
  metadata: Record<string, string> = {},
): Uint8Array {
  const hash = createHash('sha256');
  for (const t of tensors) hash.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return encodeSafetensors(tensors, { ...metadata, [DATA_SHA256]: hash.digest('hex') });
}

/**
 * Reads a safetensors file whole, as one consistent snapshot, so a reader never sees half of one version and half
 * of another when a writer rewrites it in place. A read counts only when
 * - the file had not changed for `QUIET_MS` before it (its change time), and was not changed during it (change time,
 *   size, and which file the path names);
 * - and, for a file that records its data's SHA-256 (`DATA_SHA256`, as `saveCheckpoint` writes), the data hashes to
 *   it: this holds whatever the writer's timing;
 * - or, for any other file, its SHA-256 equals that of the read before it, `QUIET_MS` earlier. A writer would have had
 *   to stop mid-rewrite for both reads and the wait between them, with no write in that time.
 * The file is read again until a read counts, at most `MAX_READS` times within `SETTLE_MS`; then it is refused,
 * naming a file whose data stays unlike its recorded SHA-256 as corrupt.
 */
export async function readSafetensors(file: string): Promise<SafetensorsFile> {
  const handle = await open(file, 'r');
  // The previous read's hash (of the whole file), and whether the data kept disagreeing with a recorded hash.
  let previous: string | undefined;
  let corrupt = false;
  try {
    const deadline = performance.now() + SETTLE_MS;
    for (let reads = 0; reads < MAX_READS && performance.now() < deadline; ) {
      const before = await handle.stat();
      const quietFor = Date.now() - before.ctimeMs;
      if (quietFor < QUIET_MS) {
        await sleep(QUIET_MS - quietFor);
        continue;
      }
      const bytes = Buffer.alloc(before.size);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
      reads++;
      const after = await handle.stat();
      const named = await stat(file).catch(() => null);
      const unchanged =
        bytesRead === before.size &&
        after.size === before.size &&
        after.ctimeMs === before.ctimeMs &&
        named?.ino === after.ino &&
        named.dev === after.dev;
      const hash = unchanged ? sha256(bytes) : undefined;
      if (hash !== undefined) {
        const again = hash === previous;
        // A header torn by a writer may not parse: only one read twice is malformed for certain.
        const parsed = again ? parseSafetensors(file, bytes) : parsedOrUndefined(file, bytes);
        const recorded = parsed?.metadata[DATA_SHA256];
        const whole = recorded === undefined ? again : sha256(bytes.subarray(parsed!.dataStart)) === recorded;
        if (parsed && whole) return { ...parsed, sha256: () => hash };
        corrupt = recorded !== undefined && again;
      }
      previous = hash;
      await sleep(QUIET_MS);
    }
  } finally {
    await handle.close();
  }
  if (corrupt) {
    throw new Error(
      `${file}: its data does not match the SHA-256 its header records (${DATA_SHA256}); the file is corrupt or ` +
        'was cut short: save the weights again',
    );
  }
  throw new Error(
    `${file}: kept changing while it was read (no consistent snapshot in ${MAX_READS} reads or ${SETTLE_MS / 1000} s; ` +
      'a writer rewriting it in place?); write new weights to a new file and rename it into place, then reload',
  );
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function parsedOrUndefined(file: string, bytes: Uint8Array): ParsedSafetensors | undefined {
  try {
    return parseSafetensors(file, bytes);
  } catch {
    return undefined;
  }
}
