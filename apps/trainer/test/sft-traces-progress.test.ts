import { ByteTokenizer, generateArithProblems, generateArithTraces } from '@taorl/data';
import { createSandbox, type LocalSandbox, markdownFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProgressBar } from '../src/report/progress.js';
import { withTracesBar } from '../src/workflows/sft-run.js';

describe('the sft traces bar (real sandbox)', () => {
  let sandbox: LocalSandbox;

  beforeAll(async () => {
    sandbox = await createSandbox({ workers: 2 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('prints progress per demonstration on a non-TTY sink, not only the end', async () => {
    const problems = generateArithProblems({ seed: 3, split: 'train', count: 6 });
    const lines: string[] = [];
    // Each reading of the clock is a minute later, so every tick is past the bar's 10 s between printed lines.
    let clock = 0;
    const bar = new ProgressBar({
      label: 'sft traces',
      total: problems.length,
      sink: { write: (text) => lines.push(text) },
      now: () => (clock += 60_000),
    });
    const traces = await withTracesBar(bar, (onProgress) =>
      generateArithTraces(problems, {
        sandbox,
        format: markdownFormat,
        tokenizer: new ByteTokenizer(),
        seed: 4,
        onProgress,
      }),
    );
    expect(traces).toHaveLength(problems.length);
    const counts = lines.map((line) =>
      line
        .match(/\] (\d+)\/(\d+) /)
        ?.slice(1)
        .map(Number),
    );
    expect(counts).toEqual([...problems.map((_, index) => [index + 1, 6]), [6, 6]]);
    expect(lines.at(-1)).toMatch(/\| 6 traces\n$/);
  });
});
