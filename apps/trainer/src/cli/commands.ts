import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { curateByPassRate, groupTrajectories, passRates } from '@taorl/data';
import { BenchmarkFormatError, benchmarkNames, createGraderPool } from '@taorl/eval';
import type { AdamWState } from '@taorl/grpo';
import { benchmarkTable, writeBenchmarkReports } from '../bench-eval/benchmark-reports.js';
import { defaultBenchmarkDir, resolveBenchmarkNames } from '../bench-eval/benchmark-set.js';
import { evaluateBenchmarks } from '../bench-eval/evaluate-benchmarks.js';
import { BenchmarkResultsError } from '../bench-eval/results-file.js';
import { writeFileAtomic } from '../checkpoint/atomic-write.js';
import { latestCheckpoint, restoreTrainCheckpoint } from '../checkpoint/train-checkpoint.js';
import { ConfigError } from '../config/schema-dsl.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import type { RolloutPolicy } from '../model/policy.js';
import { writeReport } from '../report/html-report.js';
import { MetricsWriter, readMetrics } from '../report/metrics.js';
import { gradeTrajectories } from '../rl/rewards.js';
import { rollout } from '../rollout/rollout-engine.js';
import { demoTable, runDemo } from '../run/demo.js';
import { evaluate } from '../run/evaluate.js';
import { problemSource } from '../run/problems.js';
import { runRl } from '../run/rl-run.js';
import { openSession, type Session } from '../run/session.js';
import { runSft, sftExamples } from '../run/sft-run.js';
import { deriveSeed } from '../util/seeds.js';
import { ablateCommand } from './ablate-command.js';
import { commandUsage, type FlagSpec, parseCommand, UsageError } from './command-args.js';
import { presetPath } from './presets.js';
import type { CliCommand, CliIO } from './run-cli.js';
import { serveCommand } from './serve-command.js';

interface CommandSpec {
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** The preset used when --config is omitted. */
  preset?: string;
  /** Checks the command's flags before the session (model, sandbox) opens. */
  checkFlags?(flags: Record<string, string | boolean | undefined>): void;
  run(session: Session, flags: Record<string, string | boolean | undefined>, io: CliIO): Promise<void>;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

function metricsWriter(config: TrainerConfig): MetricsWriter {
  mkdirSync(config.outDir, { recursive: true });
  const writer = new MetricsWriter(join(config.outDir, 'metrics.jsonl'));
  writer.truncateAfter(() => false);
  return writer;
}

function integerFlag(
  flags: Record<string, string | boolean | undefined>,
  name: string,
  fallback: number,
): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`--${name}`, name, `expected a positive integer, got ${String(raw)}`);
  return value;
}

/** Wraps a spec as a CLI command: flags and config parsed, session opened and always closed. */
function define(spec: CommandSpec): CliCommand {
  return {
    summary: spec.summary,
    async run(args, io) {
      const usage = commandUsage(spec.name, spec.summary, spec.flags);
      const parsed = parseCommand(
        args,
        spec.flags,
        spec.preset === undefined ? undefined : presetPath(spec.preset),
      );
      if (parsed.help) {
        io.out(usage);
        return 0;
      }
      spec.checkFlags?.(parsed.flags);
      const session = await openSession(parsed.config, parsed.source);
      try {
        await spec.run(session, parsed.flags, io);
      } finally {
        await session.close();
      }
      return 0;
    },
  };
}

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

const sft: CommandSpec = {
  name: 'sft',
  summary: 'Supervised fine-tuning on real end-to-end tool-use traces; saves the policy to <outDir>/policy',
  flags: {},
  async run(session, _flags, io) {
    const { config } = session;
    const writer = metricsWriter(config);
    const examples = await sftExamples(session);
    const trainer = await runSft(session, examples, writer, {
      steps: config.sft.steps,
      minutes: config.sft.minutes,
    });
    trainer.dispose();
    await session.policy.save(join(config.outDir, 'policy'));
    await writeReport(join(config.outDir, 'report.html'), 'taorl sft', readMetrics(writer.path));
    io.out(
      `SFT done: ${readMetrics(writer.path).length} steps; policy in ${join(config.outDir, 'policy')}\n`,
    );
  },
};

const rl: CommandSpec = {
  name: 'rl',
  summary:
    'TAO-RL / GRPO training from model.path (or a fresh tiny model); checkpoints, policy/ and report.html',
  flags: {
    eval: { type: 'boolean', doc: 'evaluate on the held-out split before and after' },
    'eval-after': { type: 'boolean', doc: 'evaluate on the held-out split after training only' },
    resume: { type: 'boolean', doc: 'continue from <outDir>/checkpoints/latest.json (same config and seed)' },
  },
  preset: 'tao-rl',
  async run(session, flags, io) {
    const { config } = session;
    mkdirSync(config.outDir, { recursive: true });
    const writer = new MetricsWriter(join(config.outDir, 'metrics.jsonl'));
    const latest = flags.resume === true ? latestCheckpoint(config.outDir) : null;
    let optimizerState: AdamWState | null = null;
    if (latest !== null) {
      if (latest.phase !== 'rl' || latest.seed !== config.seed) {
        throw new ConfigError(
          session.source,
          'seed',
          `the checkpoint in ${config.outDir} is ${latest.phase} seed ${latest.seed}`,
        );
      }
      optimizerState = await restoreTrainCheckpoint(latest, session.policy);
      writer.truncateAfter((line) => line.step <= latest.step && !(line.phase === 'eval' && line.step > 0));
      io.out(`Resuming after RL step ${latest.step} from ${latest.path}\n`);
    } else {
      writer.truncateAfter(() => false);
    }
    const problems = await problemSource(session);
    if (flags.eval === true && latest === null) {
      writer.write(await evaluate(session, problems.test(), { label: 'before RL', step: 0 }));
    }
    const completed = latest?.step ?? 0;
    const lines = await runRl(session, problems, writer, {
      completed,
      checkpointDir: config.outDir,
      optimizerState,
    });
    if (flags.eval === true || flags['eval-after'] === true) {
      writer.write(
        await evaluate(session, problems.test(), { label: 'after RL', step: completed + lines.length }),
      );
    }
    await session.policy.save(join(config.outDir, 'policy'));
    await writeReport(join(config.outDir, 'report.html'), 'taorl rl', readMetrics(writer.path));
    io.out(
      `RL done: ${completed + lines.length} steps; metrics, report.html and policy/ in ${config.outDir}\n`,
    );
  },
};

/** Flags that only mean something with --bench. */
const benchOnlyFlags = ['k', 'limit', 'data-dir', 'fresh'];

async function heldOutEval(session: Session, io: CliIO): Promise<void> {
  const result = await evaluate(session, (await problemSource(session)).test(), {
    label: 'held-out',
    step: 0,
  });
  mkdirSync(session.config.outDir, { recursive: true });
  writeFileAtomic(join(session.config.outDir, 'held-out.json'), `${JSON.stringify(result)}\n`);
  io.out(
    `${result.problems} problems, K=${session.config.eval.samples}: accuracy ${percent(result.accuracy)}, ` +
      `pass@K ${percent(result.passAtK)}, tool calls ${result.toolCallsPerTrajectory.toFixed(2)}, ` +
      `tool success ${percent(result.toolSuccessRate)}\n` +
      `written to ${join(session.config.outDir, 'held-out.json')}\n`,
  );
}

/** Benchmark evaluation into <outDir>/eval: results.jsonl (resumed unless --fresh), report.{json,md,html}. */
async function benchmarkEval(
  session: Session,
  flags: Record<string, string | boolean | undefined>,
  io: CliIO,
): Promise<void> {
  const { config } = session;
  const outDir = join(config.outDir, 'eval');
  const dataDir = typeof flags['data-dir'] === 'string' ? resolve(flags['data-dir']) : defaultBenchmarkDir();
  // The policy that answers; a remote one (--endpoint) takes its place here.
  const policy: RolloutPolicy = session.policy;
  const model = config.model.path ?? `embedded tiny model (seed ${config.seed})`;
  const grader = createGraderPool({ size: 1 });
  try {
    const result = await evaluateBenchmarks(policy, session, {
      model,
      benchmarks: resolveBenchmarkNames(String(flags.bench)),
      k: integerFlag(flags, 'k', config.eval.samples),
      dataDir,
      ...(flags.limit === undefined ? {} : { limit: integerFlag(flags, 'limit', 1) }),
      resultsPath: join(outDir, 'results.jsonl'),
      toolFormat: config.tool.format.name,
      sampling: {
        temperature: config.rollout.temperature,
        topP: config.rollout.topP,
        topK: config.rollout.topK,
      },
      maxTurns: config.rollout.maxTurns,
      maxResponseTokens: config.rollout.maxResponseTokens,
      seed: config.seed,
      lanes: config.rollout.lanes,
      fresh: flags.fresh === true,
      grader,
      warn: (message) => io.err(`warning: ${message}\n`),
    });
    const paths = await writeBenchmarkReports(outDir, result);
    io.out(
      `${benchmarkTable(result.reports)}\n\n${result.generated} samples generated, ${result.samples} in ` +
        `${result.resultsPath}\nreports: ${paths.markdown}, ${paths.html}, ${paths.json}\n`,
    );
  } catch (error) {
    // A wrong --data-dir or a results file that cannot be resumed is the user's to fix: no stack trace.
    if (error instanceof BenchmarkFormatError || error instanceof BenchmarkResultsError)
      throw new UsageError(error.message);
    throw error;
  } finally {
    await grader.close();
  }
}

const evalCommand: CommandSpec = {
  name: 'eval',
  summary:
    'Evaluation of model.path: the held-out split, or math benchmarks with --bench (Avg@K, Pass@k, Maj@K, tool use)',
  flags: {
    bench: {
      type: 'string',
      doc: `benchmarks, comma-separated (${benchmarkNames.join(', ')}) or all; without it: the held-out split`,
    },
    k: { type: 'string', doc: 'samples per problem with --bench (default eval.samples)' },
    limit: { type: 'string', doc: 'only the first n problems of each benchmark' },
    'data-dir': {
      type: 'string',
      doc: 'benchmark folder (default ../shared/data/benchmarks beside the repository root)',
    },
    fresh: { type: 'boolean', doc: 'discard <outDir>/eval/results.jsonl instead of resuming it' },
  },
  checkFlags(flags) {
    if (flags.bench === undefined) {
      const stray = benchOnlyFlags.filter((name) => flags[name] !== undefined);
      if (stray.length > 0) throw new UsageError(`--${stray.join(', --')} need(s) --bench`);
      return;
    }
    try {
      resolveBenchmarkNames(String(flags.bench));
    } catch (error) {
      throw new UsageError(`--bench: ${(error as Error).message}`);
    }
  },
  async run(session, flags, io) {
    if (flags.bench === undefined) await heldOutEval(session, io);
    else await benchmarkEval(session, flags, io);
  },
};

const curate: CommandSpec = {
  name: 'curate',
  summary: 'Model-aware curation: pass rates of training problems under model.path, keep 0 < rho < 1',
  flags: {
    problems: { type: 'string', doc: 'training problems to score (default 256)' },
    samples: { type: 'string', doc: 'samples per problem (default 8)' },
  },
  async run(session, flags, io) {
    const { config, policy, tokenizer, tools } = session;
    const count = integerFlag(flags, 'problems', 256);
    const k = integerFlag(flags, 'samples', 8);
    const problems = (await problemSource(session)).train(1, 0, count);
    const golds = new Map(problems.map((p) => [p.id, p.gold]));
    const prompts = problems.flatMap((p) =>
      Array.from({ length: k }, () => ({ groupId: p.id, promptIds: p.promptIds })),
    );
    const { trajectories } = await rollout(policy, tokenizer, tools, prompts, {
      maxTurns: config.rollout.maxTurns,
      maxResponseTokens: config.rollout.maxResponseTokens,
      sampling: {
        temperature: config.rollout.temperature,
        topP: config.rollout.topP,
        topK: config.rollout.topK,
      },
      seed: deriveSeed(config.seed, 'curate'),
      lanes: config.rollout.lanes,
    });
    const graded = gradeTrajectories(
      trajectories,
      (id) => golds.get(id)!,
      (ids) => tokenizer.decode(ids),
    );
    const report = curateByPassRate(passRates(groupTrajectories(graded)));
    mkdirSync(config.outDir, { recursive: true });
    const path = join(config.outDir, 'curated.jsonl');
    writeFileAtomic(path, report.kept.map((rate) => `${JSON.stringify(rate)}\n`).join(''));
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
