/**
 * How the SFT demonstrations of a config differ between two sandbox backends: the generator runs each
 * demonstration's tool calls in the sandbox, so the tool outputs the model is trained on are the backend's. Each
 * seed's demonstrations are made with each backend, decoded and compared one by one; a differing pair is classed by
 * what differs between CPython versions (3.11 in Debian, 3.14 in Pyodide): only the error-location marker lines of
 * a traceback (a line of only `^` and `~`, whose columns differ), those and a NameError's "Did you mean" suggestion
 * (3.14 adds it there), or otherwise (the first few are printed).
 *
 *   pnpm bench apps/trainer/bench/sandbox-demonstrations.ts [config=apps/trainer/configs/demo.yaml] [seeds=1]
 *     [backends=local,pyodide] [--set field=value ...]
 */
import { resolve } from 'node:path';
import { loadConfig, openSession } from '../src/index.js';
import { sftExamples } from '../src/workflows/sft-run.js';

const configPath = resolve(process.argv[2] ?? 'apps/trainer/configs/demo.yaml');
const seeds = (process.argv[3] ?? '1').split(',').map(Number);
const [first, second] = (process.argv[4] ?? 'local,pyodide').split(',');
const overrides = process.argv.slice(5).filter((argument) => argument !== '--set');
if (first === undefined || second === undefined) throw new Error('backends: name two, as local,pyodide');

/** A traceback's error-location line: only spaces, carets and tildes. */
const MARKER_LINE = /^[ \t]*[\^~]+[ \t]*$/;
const withoutMarkers = (text: string) =>
  text
    .split('\n')
    .filter((line) => !MARKER_LINE.test(line))
    .join('\n');
/** An error message's suggestion, as `NameError: name 'prnt' is not defined. Did you mean: 'print'?`. */
const withoutSuggestions = (text: string) =>
  withoutMarkers(text).replace(/\. Did you mean: '[^'\n]*'\?/g, '');

async function demonstrations(seed: number, backend: string): Promise<string[]> {
  const config = loadConfig(configPath, [...overrides, `seed=${seed}`, `tool.sandbox.name=${backend}`]);
  const session = await openSession(config, configPath);
  try {
    const started = performance.now();
    const examples = await sftExamples(session);
    console.error(
      `seed ${seed}, ${backend}: ${examples.length} demonstrations in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    return examples.map((example) => session.tokenizer.decode(Array.from(example.inputIds)));
  } finally {
    await session.close();
  }
}

/** The first line where two texts differ, with its number, from each. */
function firstDifference(a: string, b: string): string {
  const linesA = a.split('\n');
  const linesB = b.split('\n');
  const index = linesA.findIndex((line, i) => line !== linesB[i]);
  const at = index === -1 ? linesA.length : index;
  return `line ${at + 1}:\n  ${first}: ${JSON.stringify(linesA[at])}\n  ${second}: ${JSON.stringify(linesB[at])}`;
}

const rows: string[] = [];
for (const seed of seeds) {
  const [textsA, textsB] = [await demonstrations(seed, first), await demonstrations(seed, second)];
  if (textsA.length !== textsB.length)
    throw new Error(`seed ${seed}: ${textsA.length} vs ${textsB.length} demonstrations`);
  let identical = 0;
  let markersOnly = 0;
  let markersAndSuggestions = 0;
  const other: number[] = [];
  textsA.forEach((text, index) => {
    const otherText = textsB[index] as string;
    if (text === otherText) identical++;
    else if (withoutMarkers(text) === withoutMarkers(otherText)) markersOnly++;
    else if (withoutSuggestions(text) === withoutSuggestions(otherText)) markersAndSuggestions++;
    else other.push(index);
  });
  for (const index of other.slice(0, 3)) {
    console.log(
      `seed ${seed}, demonstration ${index}, ${firstDifference(textsA[index] as string, textsB[index] as string)}\n`,
    );
  }
  rows.push(
    `| ${seed} | ${textsA.length} | ${identical} | ${markersOnly} | ${markersAndSuggestions} | ${other.length} |`,
  );
}
console.log(
  '| seed | demonstrations | identical | differ only in marker lines | in marker lines and suggestions | otherwise |',
);
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
