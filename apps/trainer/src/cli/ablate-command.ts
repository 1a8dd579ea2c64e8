import { runAblation } from '../experiments/ablate/run-ablation.js';
import { currentCliLauncher } from '../experiments/ablate/run-queue.js';
import { ablationVariants, selectVariants } from '../experiments/ablate/variants.js';
import { lockFolder } from '../util/folder-lock.js';
import { presetPath } from '../util/shipped.js';
import type { CliCommand, FlagSpec } from './cli-command.js';
import { commandUsage, parseCommand, UsageError } from './command-args.js';

const summary =
  `TAO-RL ablation: every arm (${ablationVariants.map((variant) => variant.name).join(', ')}) x seeds from one ` +
  'SFT policy; table with 95% CIs and learning curves';

const flags = {
  from: { type: 'string', doc: 'starting policy folder', default: 'run SFT first into <outDir>/sft' },
  seeds: { type: 'string', doc: 'comma-separated seeds', default: '1,2,3' },
  variants: { type: 'string', doc: 'comma-separated arms or all', default: 'all' },
  parallel: { type: 'string', doc: 'runs at a time, one per core', default: '2' },
} satisfies Record<string, FlagSpec>;

function positiveIntegers(flag: string, raw: string): number[] {
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 0))
    throw new UsageError(`--${flag}: expected comma-separated non-negative integers, got '${raw}'`);
  return values;
}

/** `taorl ablate`: no session of its own; every run is a child `taorl` process (one wasm backend per core). */
export const ablateCommand: CliCommand = {
  summary,
  flags,
  configFlags: true,
  preset: 'ablate',
  async run(args, io) {
    const parsed = await parseCommand(args, flags, presetPath('ablate'));
    if (parsed.help) {
      io.out(commandUsage('ablate', ablateCommand));
      return 0;
    }
    const seeds = positiveIntegers('seeds', String(parsed.flags.seeds ?? flags.seeds.default));
    const [parallel] = positiveIntegers('parallel', String(parsed.flags.parallel ?? flags.parallel.default));
    if (parallel === undefined || parallel < 1)
      throw new UsageError('--parallel: expected a positive integer');
    let variants: ReturnType<typeof selectVariants>;
    try {
      variants = selectVariants(String(parsed.flags.variants ?? flags.variants.default));
    } catch (error) {
      throw new UsageError(`--variants: ${(error as Error).message}`);
    }
    const from = parsed.flags.from;
    // The children lock their own run folders; this one keeps a second ablation out of the whole tree.
    const lock = lockFolder(parsed.config.outDir, 'taorl ablate', (notice) => io.err(`warning: ${notice}\n`));
    try {
      const result = await runAblation({
        outDir: parsed.config.outDir,
        ...(parsed.source === '(defaults)' ? {} : { configPath: parsed.source }),
        overrides: parsed.overrides,
        pluginFiles: parsed.pluginFiles,
        ...(typeof from === 'string' ? { from } : {}),
        seeds,
        variants,
        parallel,
        cli: currentCliLauncher(),
        log: (line) => io.out(`${line}\n`),
      });
      io.out(
        `\n${result.markdown}\nWall time ${result.wallSeconds.toFixed(0)} s. ` +
          `Reports: ${result.paths.markdown}, ${result.paths.html}\n`,
      );
    } finally {
      lock.release();
    }
    return 0;
  },
};
