// Filtering + group advantages + entropy shaping over 1,024 trajectories x 4,096 tokens (issue 5's budget:
// under 50 ms together). Run: pnpm bench packages/advantage/bench/pipeline.ts
import { computeAdvantages, postToolMask, type ShapingTrajectory, type ToolCallSpan } from '@taorl/advantage';
import { seededRandom } from '@taorl/eval';
import { toolAwareFilter } from '@taorl/filter';
import { selectTop } from '../src/quantile';

const TRAJECTORIES = 1024;
const TOKENS = 4096;
const GROUP_SIZE = 8;
const RUNS = 15;

interface BenchTrajectory extends ShapingTrajectory {
  readonly groupId: number;
  readonly reward: number;
  readonly correct: boolean;
}

/** Three tool calls per trajectory with 150-token observations; about a quarter of the calls fail. */
function makeBatch(): BenchTrajectory[] {
  const random = seededRandom(5);
  return Array.from({ length: TRAJECTORIES }, (_, i) => {
    const lossMask = new Uint8Array(TOKENS).fill(1);
    const entropies = new Float32Array(TOKENS);
    for (let t = 0; t < TOKENS; t++) entropies[t] = -Math.log(random() + 1e-9) * 0.6;
    const toolCalls: ToolCallSpan[] = [];
    for (let c = 0; c < 3; c++) {
      const startToken = 500 + c * 1200 + Math.floor(random() * 300);
      const endToken = startToken + 150;
      lossMask.fill(0, startToken, endToken);
      toolCalls.push({ status: random() < 0.75 ? 'ok' : 'error', startToken, endToken });
    }
    const correct = random() < 0.5;
    return {
      groupId: Math.floor(i / GROUP_SIZE),
      reward: correct ? 1 : 0,
      correct,
      lossMask,
      entropies,
      toolCalls,
    };
  });
}

let sink = 0;

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

// Reading this (64 MB, twice the largest cache here) before a run evicts the batch from the caches, as the
// rollout and model code running between two training steps would.
const evictor = new Float32Array(16 * 1024 * 1024).fill(1);
function evictCaches(): number {
  let sum = 0;
  for (let i = 0; i < evictor.length; i += 16) sum += evictor[i]!;
  return sum;
}

interface Timing {
  /** Wall-clock milliseconds: median and minimum. */
  readonly median: number;
  readonly min: number;
  /** Median CPU milliseconds of this process (user + system): what the stage costs when it gets a core. */
  readonly cpu: number;
}

/** RUNS timed runs after one warm-up run, with hot caches or with the caches evicted before each run. */
function time(run: () => void, caches: 'hot' | 'cold' = 'hot'): Timing {
  run();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    if (caches === 'cold') sink += evictCaches();
    const startCpu = process.cpuUsage();
    const start = performance.now();
    run();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  return { median: median(wall), min: Math.min(...wall), cpu: median(cpu) };
}

const batch = makeBatch();
const filter = toolAwareFilter();

// Baseline: the memory floor of the stage, one pass that reads every mask and entropy and writes every token.
const floor = time(() => {
  const out = new Float32Array(TRAJECTORIES * TOKENS);
  let o = 0;
  for (const t of batch) {
    for (let p = 0; p < TOKENS; p++) out[o++] = t.lossMask[p]! * t.entropies[p]!;
  }
  sink += out[7]!;
});

const rows: [string, Timing][] = [['baseline: one read/write pass over all tokens', floor]];
const measure = (label: string, run: () => number, caches: 'hot' | 'cold' = 'hot'): void => {
  rows.push([label, time(() => (sink += run()), caches)]);
};
measure('filter: toolAwareFilter', () => filter.apply(batch).kept.length);
measure(
  'filter: toolAwareFilter, mask mode',
  () => toolAwareFilter({ mode: 'mask' }).apply(batch).kept.length,
);

// The entropy threshold alone: radix selection against sorting the M_post entropies.
const postTool = batch.flatMap((t) => {
  const mask = postToolMask(t);
  return Array.from(t.entropies).filter((_, p) => mask[p] === 1);
});
const candidates = Float32Array.from(postTool);
measure(
  `threshold: selectTop over ${candidates.length} M_post entropies`,
  () => selectTop(candidates, 0.2)!.count,
);
measure('threshold: sort a copy, read the quantile (naive)', () => {
  const sorted = candidates.slice().sort();
  return sorted[Math.floor(0.8 * (sorted.length - 1))]!;
});
const kept = filter.apply(batch).kept;
for (const shaper of ['none', 'tao', 'cheng', 'aepo']) {
  measure(
    `advantages: grpo + ${shaper}, packed`,
    () => computeAdvantages(kept, { shaper }).tokens.packed!.data[3]!,
  );
}
measure('advantages: grpo + tao, separate rows', () => {
  return computeAdvantages(kept, { layout: 'separate' }).tokens.perTrajectory[0]![3]!;
});
const stage = (): number => {
  const survivors = filter.apply(batch).kept;
  return computeAdvantages(survivors, { estimator: 'grpo', shaper: 'tao' }).tokens.packed!.data[3]!;
};
measure('total: toolAwareFilter + grpo + tao, packed', stage);
measure('total, caches evicted before each run', stage, 'cold');

const stats = filter.apply(batch).stats;
console.log(`batch ${TRAJECTORIES} x ${TOKENS} tokens, ${stats.kept} kept after filtering, ${RUNS} runs`);
console.log('| stage | wall median ms | wall min ms | CPU median ms | wall median / baseline |');
console.log('|---|---:|---:|---:|---:|');
for (const [label, t] of rows) {
  const cells = [t.median, t.min, t.cpu, t.median / floor.median].map((v) => v.toFixed(2));
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
if (Number.isNaN(sink)) console.log('unreachable');
