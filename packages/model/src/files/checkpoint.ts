import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile as writeFileUnnamed } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  type Checkpoint,
  type NamedTensor,
  parseHfConfig,
  type SaveOptions,
  type TensorLocation,
  toHfConfig,
  weightCount,
  weightSpecs,
} from '@taorl/model';
import { COMPANION_FILES, readCompanionFiles } from './companion-files.js';
import { encodeSafetensorsFile, readSafetensors, type SafetensorsFile } from './safetensors-file.js';

const SINGLE_FILE = 'model.safetensors';
const INDEX_FILE = 'model.safetensors.index.json';
const SHARD_FILE = /^model-\d{5}-of-\d{5}\.safetensors$/;

/** A config.json implying more tensors than the files hold by over this many is refused by the count alone. */
const MISSING_LISTED = 1000;
/** Missing tensors named in an error at most. */
const MISSING_NAMED = 20;

/** Buffers derived from the config that some exporters store; they carry no weights. */
const DERIVED_BUFFER = /\.rotary_emb\.inv_freq$/;

/**
 * A failed write names the file: Node's errors for a write to an open descriptor (ENOSPC, EDQUOT, EIO) name only the
 * system call, and a full disk at the end of a run must say what it was writing. The code and errno stay.
 */
const writeFile = (path: string, data: string | Uint8Array) =>
  writeFileUnnamed(path, data).catch((error: unknown) => {
    if (!(error instanceof Error) || error.message.includes(path)) throw error;
    const { code, errno, syscall } = error as NodeJS.ErrnoException;
    throw Object.assign(new Error(`${path}: ${error.message}`), { code, errno, syscall, path });
  });

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text, and a server must not echo the bytes of a file it was pointed at.
    throw new Error(`${file}: not valid JSON`);
  }
}

/** A tensor's location and the file snapshot that holds its values. */
interface StoredTensor {
  location: TensorLocation;
  file: SafetensorsFile;
}

async function storedTensors(dir: string): Promise<StoredTensor[]> {
  const stored = (file: SafetensorsFile) => file.tensors.map((location) => ({ location, file }));
  const indexPath = join(dir, INDEX_FILE);
  if (existsSync(indexPath)) {
    const index = (await readJson(indexPath)) as { weight_map?: unknown };
    const map = index.weight_map;
    if (typeof map !== 'object' || map === null)
      throw new Error(`${indexPath}: missing object field "weight_map"`);
    const shards = [...new Set(Object.values(map as Record<string, unknown>))];
    const tensors: StoredTensor[] = [];
    for (const shard of shards) {
      // A file of this folder only: a path ("../x", "/x") would read outside the folder the caller chose.
      if (typeof shard !== 'string' || shard !== basename(shard) || shard === '..' || shard === '.')
        throw new Error(`${indexPath}: weight_map values must be file names in ${dir}`);
      const shardPath = join(dir, shard);
      if (!existsSync(shardPath))
        throw new Error(`${indexPath}: names shard "${shard}", which is not in ${dir}`);
      tensors.push(...stored(await readSafetensors(shardPath)));
    }
    return tensors;
  }
  const single = join(dir, SINGLE_FILE);
  if (!existsSync(single)) throw new Error(`${dir}: neither ${SINGLE_FILE} nor ${INDEX_FILE} found`);
  return stored(await readSafetensors(single));
}

/**
 * A tensor's values, refused when any is NaN or infinite: such weights make every log-prob NaN, which a server
 * would send as null and a trainer would train on.
 */
function finiteValues({ location, file }: StoredTensor): Float32Array {
  const values = file.read(location);
  let bad = 0;
  let first = -1;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i]!)) {
      bad++;
      if (first < 0) first = i;
    }
  }
  if (bad > 0) {
    throw new Error(
      `${location.file}: tensor "${location.name}" holds ${bad} non-finite value(s) of ${values.length} ` +
        `(the first, at index ${first}, is ${values[first]}); refusing weights that cannot be served or trained`,
    );
  }
  return values;
}

/**
 * Loads a local Hugging Face folder: config.json and model.safetensors, or the shards listed in
 * model.safetensors.index.json; F32, F16 and BF16 tensors. Every missing, misshapen, unexpected or non-finite
 * tensor is an error naming the tensor and the file; each file is read whole as one snapshot (`readSafetensors`).
 */
export async function loadCheckpoint(dir: string): Promise<Checkpoint> {
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath))
    throw new Error(`${dir}: no config.json (expected a Hugging Face model folder)`);
  const config = parseHfConfig(await readJson(configPath), configPath);
  const byName = new Map((await storedTensors(dir)).map((t) => [t.location.name, t]));
  // Bounded by the files before anything is listed or allocated: a config.json claiming 3e7 layers must fail here,
  // not after minutes of building names for tensors that are not there. A few missing tensors are named below.
  const implied = weightCount(config);
  if (implied > byName.size + MISSING_LISTED) {
    throw new Error(
      `${dir}: config.json implies ${implied} tensors (num_hidden_layers ${config.numLayers}), the safetensors ` +
        `files hold ${byName.size}`,
    );
  }
  const specs = weightSpecs(config);
  const missing = specs.filter((s) => !byName.has(s.name)).map((s) => s.name);
  if (missing.length > 0) {
    const shown = missing.slice(0, MISSING_NAMED).join(', ');
    throw new Error(
      `${dir}: missing ${missing.length} tensor(s) required by config.json: ${shown}` +
        `${missing.length > MISSING_NAMED ? ', ...' : ''}`,
    );
  }
  const expected = new Set(specs.map((s) => s.name));
  const unexpected = [...byName.keys()].filter((n) => !expected.has(n) && !DERIVED_BUFFER.test(n));
  if (unexpected.length > 0) {
    throw new Error(
      `${dir}: tensor(s) not used by a ${config.family} model with this config: ${unexpected.join(', ')}`,
    );
  }
  const tensors = new Map<string, Float32Array>();
  for (const spec of specs) {
    const stored = byName.get(spec.name)!;
    const { location } = stored;
    if (location.shape.join(',') !== spec.shape.join(',')) {
      throw new Error(
        `${location.file}: tensor "${spec.name}" has shape [${location.shape}], config.json implies [${spec.shape}]`,
      );
    }
    tensors.set(spec.name, finiteValues(stored));
  }
  return { config, tensors, files: await readCompanionFiles(dir) };
}

/**
 * Writes config.json, F32 safetensors (each recording its data's SHA-256, so a reader tells a torn read) (one file, or shards with an index) in the Hugging Face layout, and the
 * checkpoint's companion files (tokenizer, chat template, generation settings) as they were loaded; a companion file
 * the checkpoint has none of is removed, so a folder saved over never pairs these weights with another model's
 * tokenizer.
 */
export async function saveCheckpoint(
  dir: string,
  checkpoint: Checkpoint,
  options: SaveOptions = {},
): Promise<void> {
  const maxShardBytes = options.maxShardBytes ?? 4 * 1024 ** 3;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), `${JSON.stringify(toHfConfig(checkpoint.config), null, 2)}\n`);
  const shards: NamedTensor[][] = [[]];
  let shardBytes = 0;
  for (const spec of weightSpecs(checkpoint.config)) {
    const data = checkpoint.tensors.get(spec.name);
    if (data === undefined) throw new Error(`saveCheckpoint: tensor "${spec.name}" is missing`);
    const current = shards[shards.length - 1]!;
    if (current.length > 0 && shardBytes + data.byteLength > maxShardBytes) {
      shards.push([]);
      shardBytes = 0;
    }
    shards[shards.length - 1]!.push({ name: spec.name, shape: spec.shape, data });
    shardBytes += data.byteLength;
  }
  const metadata = { format: 'pt' };
  await writeCompanionFiles(dir, checkpoint.files ?? new Map());
  if (shards.length === 1) {
    await removeWeightFiles(dir, new Set([SINGLE_FILE]));
    await writeFile(join(dir, SINGLE_FILE), encodeSafetensorsFile(shards[0]!, metadata));
    return;
  }
  const pad = (i: number) => String(i).padStart(5, '0');
  const shardFile = (i: number) => `model-${pad(i + 1)}-of-${pad(shards.length)}.safetensors`;
  await removeWeightFiles(dir, new Set([INDEX_FILE, ...shards.map((_, i) => shardFile(i))]));
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  for (const [i, shard] of shards.entries()) {
    const file = shardFile(i);
    await writeFile(join(dir, file), encodeSafetensorsFile(shard, metadata));
    for (const t of shard) {
      weightMap[t.name] = file;
      totalSize += t.data.byteLength;
    }
  }
  const index = { metadata: { total_size: totalSize }, weight_map: weightMap };
  await writeFile(join(dir, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
}

/** The weight files of an earlier save that this one will not write over, in either layout: an index left beside a
 * new single file would be read in its place (the loader prefers the index), and shards of another split would
 * linger. */
async function removeWeightFiles(dir: string, written: ReadonlySet<string>): Promise<void> {
  for (const name of await readdir(dir)) {
    const weights = name === SINGLE_FILE || name === INDEX_FILE || SHARD_FILE.test(name);
    if (weights && !written.has(name)) await rm(join(dir, name), { force: true });
  }
}

async function writeCompanionFiles(dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  for (const name of COMPANION_FILES) {
    const bytes = files.get(name);
    if (bytes === undefined) await rm(join(dir, name), { force: true });
    else await writeFile(join(dir, name), bytes);
  }
}
