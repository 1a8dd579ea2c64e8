import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA_SHA256, encodeSafetensorsFile, readSafetensors } from '../src/files/safetensors-file.js';
import { encodeSafetensors, type NamedTensor } from '../src/safetensors.js';

// A writer that rewrites a weights file in place and stalls mid-rewrite leaves a file that is quiet and
// consistent with itself, yet half one version and half the other. The reader took such a file for a snapshot
// once it had been quiet for 50 ms; it must refuse it, and take the file once the writer finishes.

const root = mkdtempSync(join(tmpdir(), 'taorl-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** One tensor of 4096 values, all `value`: versions of a file that differ in their data only. */
const tensors = (value: number): NamedTensor[] => [
  { name: 'w', shape: [64, 64], data: new Float32Array(64 * 64).fill(value) },
];

/** What a writer of version `next` over version `previous` leaves when it stalls after `bytes` bytes. */
function torn(previous: Uint8Array, next: Uint8Array, bytes: number): Uint8Array {
  const out = Uint8Array.from(previous);
  out.set(next.subarray(0, bytes));
  return out;
}

describe('readSafetensors: one version or the other, never a mix', () => {
  it('refuses a file left torn by a writer stalled mid-rewrite, naming it', async () => {
    const [a, b] = [encodeSafetensorsFile(tensors(1)), encodeSafetensorsFile(tensors(2))];
    const file = join(root, 'stalled.safetensors');
    writeFileSync(file, torn(a, b, b.length / 2));
    await expect(readSafetensors(file)).rejects.toThrow(
      `${file}: its data does not match the SHA-256 its header records (${DATA_SHA256})`,
    );
  });

  it('reads the new version once the stalled writer finishes', async () => {
    const [a, b] = [encodeSafetensorsFile(tensors(1)), encodeSafetensorsFile(tensors(2))];
    const file = join(root, 'resumed.safetensors');
    writeFileSync(file, torn(a, b, b.length / 2));
    const read = readSafetensors(file);
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(file, b);
    const snapshot = await read;
    expect([...new Set(snapshot.read(snapshot.tensors[0]!))]).toEqual([2]);
  });

  it('reads a file that records no hash (another writer) once two reads agree', async () => {
    const file = join(root, 'plain.safetensors');
    writeFileSync(file, encodeSafetensors(tensors(3), { format: 'pt' }));
    const snapshot = await readSafetensors(file);
    expect(snapshot.metadata).toEqual({ format: 'pt' });
    expect([...new Set(snapshot.read(snapshot.tensors[0]!))]).toEqual([3]);
  });

  it('records the hash of the data beside the caller metadata', async () => {
    const file = join(root, 'saved.safetensors');
    writeFileSync(file, encodeSafetensorsFile(tensors(4), { format: 'pt' }));
    const { metadata } = await readSafetensors(file);
    expect(Object.keys(metadata).sort()).toEqual(['format', DATA_SHA256]);
    expect(metadata[DATA_SHA256]).toMatch(/^[0-9a-f]{64}$/);
  });
});
