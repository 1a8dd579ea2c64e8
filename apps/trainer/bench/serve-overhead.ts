/**
 * `taorl serve`'s cost per request outside the model: HTTP, body reading, validation, batching and the answer, with a
 * policy that answers at once (one token per prompt). Two servers run side by side, this tree's and a baseline
 * `server.ts` given on the command line (for example the serve folder of an earlier commit copied next to this one),
 * and the rounds alternate between them, so both see the same machine load. Sequential requests measure the
 * per-request latency; 16 in flight measure throughput with batching.
 *
 *   git show <commit>:apps/trainer/src/serve  # copy each file into apps/trainer/src/serve-baseline/
 *   pnpm bench apps/trainer/bench/serve-overhead.ts apps/trainer/src/serve-baseline/server.ts
 */
import { resolve } from 'node:path';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import { startServer } from '../src/serve/server.js';

const baselinePath = process.argv[2];
if (baselinePath === undefined) throw new Error('usage: serve-overhead.ts <baseline server.ts>');
const baseline = (await import(resolve(baselinePath))) as { startServer: typeof startServer };

/** Answers every prompt with one token, log-prob 0, at once: what remains is the server's own cost. */
const instant: RolloutPolicy = {
  vocabSize: 259,
  maxSequenceLength: 512,
  async generate(prompts: readonly Int32Array[], _sampling: SamplingParams): Promise<GeneratedSequence[]> {
    return prompts.map(() => ({
      tokens: Int32Array.of(65),
      logProbs: Float32Array.of(0),
      entropies: Float32Array.of(0),
      finishReason: 'length',
    }));
  },
};
const decode = (ids: Int32Array) => String.fromCharCode(...ids);
const arms = {
  baseline: await baseline.startServer({ policy: instant, decode, modelName: 'm', port: 0 }),
  current: await startServer({ policy: instant, decode, modelName: 'm', port: 0 }),
};
const body = JSON.stringify({
  prompt: Array.from({ length: 200 }, (_, i) => 32 + (i % 90)),
  max_tokens: 1,
  temperature: 0.7,
  logprobs: 2,
  return_token_ids: true,
});
const request = async (url: string) => {
  const response = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
};

/** Microseconds per request: `count` requests, `inFlight` at a time. */
async function measure(url: string, count: number, inFlight: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await request(url);
    }),
  );
  return ((performance.now() - started) * 1000) / count;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const arm of Object.values(arms)) await measure(arm.url, 200, 4);
for (const inFlight of [1, 16]) {
  const times: Record<keyof typeof arms, number[]> = { baseline: [], current: [] };
  const ratios: number[] = [];
  for (let round = 0; round < 10; round++) {
    const order = (
      round % 2 === 0 ? ['baseline', 'current'] : ['current', 'baseline']
    ) as (keyof typeof arms)[];
    for (const arm of order) times[arm].push(await measure(arms[arm].url, 400, inFlight));
    ratios.push(times.current[round]! / times.baseline[round]!);
  }
  console.log(
    `${inFlight} in flight: baseline ${median(times.baseline).toFixed(0)} us/request, ` +
      `current ${median(times.current).toFixed(0)} us/request; current/baseline per round: median ` +
      `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
  );
}
await Promise.all(Object.values(arms).map((arm) => arm.close()));
