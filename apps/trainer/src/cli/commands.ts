import { demoTable, runDemo } from '../experiments/demo/demo.js';
import { curateProblems } from '../workflows/curate.js';
import { planRun, type RunFolderFlags } from '../workflows/run-folder.js';
import { trainRl, trainSft } from '../workflows/train.js';
import { ablateCommand } from './ablate-command.js';
import type { CliCommand } from './cli-command.js';
import { UsageError } from './command-args.js';
import { type CommandSpec, define, integerFlag } from './command-spec.js';
import { evalCommand } from './eval-command.js';
import { serveCommand } from './serve-command.js';

/** "1 step", "2 steps": a count with its noun. */
const countOf = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

const demo: CommandSpec = {
  name: 'demo',
  summary: 'SFT then TAO-RL on the embedded arith-tool task, then a held-out before/after table (~10 min)',
  flags: {},
  preset: 'demo',
  async run(session, _flags, io) {
    const result = await runDemo(session, io.out);
    io.out(`\n${demoTable(result)}`);
    io.out(`Total ${result.totalSeconds.toFixed(0)} s. Report: ${result.reportPath}\n`);
  },
};

/** The flags of a training command that decide what happens to the run already in its outDir. */
const runFolderFlags: CommandSpec['flags'] = {
  resume: {
    type: 'boolean',
    doc: 'continue from <outDir>/checkpoints/latest.json (same run and seed, checksum verified; config as recorded in run-config.json)',
  },
  overwrite: {
    type: 'boolean',
    doc: 'delete the run already in <outDir> (checkpoints, metrics.jsonl, run-config.json) and start anew',
  },
  'allow-config-change': {
    type: 'boolean',
    doc: 'with --resume: continue although the config differs from the recorded one (the change is recorded)',
  },
};

const runFlags = (flags: Record<string, string | boolean | undefined>): RunFolderFlags => ({
  resume: flags.resume === true,
  overwrite: flags.overwrite === true,
  allowConfigChange: flags['allow-config-change'] === true,
});

const sft: CommandSpec = {
  name: 'sft',
  summary: 'Supervised fine-tuning on real end-to-end tool-use traces; saves the policy to <outDir>/policy',
  flags: runFolderFlags,
  checkFlags: (flags, config, source) => void planRun(config, source, 'sft', runFlags(flags)),
  async run(session, flags, io) {
    const result = await trainSft(session, runFlags(flags), io);
    io.out(`SFT done: ${countOf(result.steps, 'step')}; policy in ${result.policyDir}\n`);
  },
};

const rl: CommandSpec = {
  name: 'rl',
  summary:
    'TAO-RL / GRPO training from model.path (or a fresh tiny model); checkpoints, policy/ and report.html',
  flags: {
    eval: { type: 'boolean', doc: 'evaluate on the held-out split before and after' },
    'eval-after': { type: 'boolean', doc: 'evaluate on the held-out split after training only' },
    'eval-greedy': {
      type: 'boolean',
      doc: "with --eval or --eval-after: each evaluation sampled and greedy (a second line, '... (greedy)')",
    },
    ...runFolderFlags,
  },
  preset: 'tao-rl',
  checkFlags(flags, config, source) {
    if (flags['eval-greedy'] === true && flags.eval !== true && flags['eval-after'] !== true) {
      throw new UsageError(
        '--eval-greedy: needs --eval or --eval-after (it adds a greedy line to their evaluations)',
      );
    }
    planRun(config, source, 'rl', runFlags(flags));
  },
  async run(session, flags, io) {
    const result = await trainRl(
      session,
      {
        run: runFlags(flags),
        evalBefore: flags.eval === true,
        evalAfter: flags.eval === true || flags['eval-after'] === true,
        evalGreedy: flags['eval-greedy'] === true,
      },
      io,
    );
    io.out(
      `RL done: ${countOf(result.steps, 'step')}; metrics, report.html and policy/ in ${session.config.outDir}\n`,
    );
  },
};

const curateFlags = {
  problems: { type: 'string', doc: 'training problems to score', default: '256' },
  samples: { type: 'string', doc: 'samples per problem', default: '8' },
} satisfies CommandSpec['flags'];

const curate: CommandSpec = {
  name: 'curate',
  summary: 'Model-aware curation: pass rates of training problems under model.path, keep 0 < rho < 1',
  flags: curateFlags,
  async run(session, flags, io) {
    const count = integerFlag(flags, 'problems', Number(curateFlags.problems.default));
    const k = integerFlag(flags, 'samples', Number(curateFlags.samples.default));
    const { report, path } = await curateProblems(session, { problems: count, samples: k });
    io.out(
      `${count} problems x ${k} samples: kept ${report.kept.length}, never solved ${report.neverSolved}, ` +
        `always solved ${report.alwaysSolved}\n` +
        report.histogram
          .map((bin) => `  [${bin.lower.toFixed(1)}, ${bin.upper.toFixed(1)}) ${bin.count}`)
          .join('\n') +
        `\nkept ids and pass rates: ${path}\n`,
    );
  },
};

/** The trainer's commands by name, for the CLI's table. */
export function trainerCommands(): [string, CliCommand][] {
  return [
    ...[demo, sft, rl, evalCommand, curate].map((spec): [string, CliCommand] => [spec.name, define(spec)]),
    ['serve', serveCommand],
    ['ablate', ablateCommand],
  ];
}
