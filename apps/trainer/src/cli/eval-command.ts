import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BenchmarkFormatError, CODE_JUDGE_MODES, type CodeJudgeMode } from '@taorl/eval';
import { createGraderPool, defaultBenchmarkDir } from '@taorl/eval/node';
import type { RolloutPolicy } from '@taorl/rollout';
import { JudgeUnavailableError } from '@taorl/rollout';
import { RemotePolicy } from '@taorl/rollout/node';
import { benchmarkTable, writeBenchmarkReports } from '../bench-eval/benchmark-reports.js';
import { evalBenchmarkNames, resolveBenchmarkNames } from '../bench-eval/benchmark-set.js';
import { evaluateBenchmarks } from '../bench-eval/evaluate-benchmarks.js';
import { BenchmarkResultsError } from '../bench-eval/results-file.js';
import { isHttpUrl } from '../config/http-url.js';
import { apiKeyFromEnv } from '../remote/api-key.js';
import { problemSource } from '../session/problem-source.js';
import { rolloutOptionsOf } from '../session/rollout-options.js';
import type { Session } from '../session/session.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { evaluate } from '../workflows/evaluate.js';
import type { CliIO } from './cli-command.js';
import { UsageError } from './command-args.js';
import { type CommandSpec, integerFlag, percent } from './command-spec.js';

/** Flags that only mean something with --bench. */
const benchOnlyFlags = ['k', 'limit', 'data-dir', 'fresh', 'greedy', 'window', 'code-judge'];
/** Flags that only mean something with --endpoint. */
const endpointOnlyFlags = ['api', 'served-model'];

async function heldOutEval(session: Session, policy: RolloutPolicy, io: CliIO): Promise<void> {
  const result = await evaluate(session, (await problemSource(session)).test(), {
    label: 'held-out',
    step: 0,
    policy,
  });
  mkdirSync(session.config.outDir, { recursive: true });
  writeFileAtomic(join(session.config.outDir, 'held-out.json'), `${JSON.stringify(result)}\n`);
  io.out(
    `${result.problems} problems, K=${session.config.eval.samples}: accuracy ${percent(result.accuracy)}, ` +
      `pass@K ${percent(result.passAtK)}, tool calls ${result.toolCallsPerTrajectory.toFixed(2)}, ` +
      `tool success ${percent(result.toolSuccessRate)}\n` +
      // What TAO-RL's mechanisms act on (docs/experiments/preconditions.md): lucky answers, the post-tool decision,
      // wasted calls.
      `right without a successful call ${percent(result.unexecutedCorrect ?? 0)}, entropy at the ` +
      `${result.decisionPoints ?? 0} decision points ${result.decisionPointEntropy?.toFixed(3) ?? '-'} nats, wasted calls ` +
      `${(result.wastedCallsPerTrajectory ?? 0).toFixed(2)} per answer\n` +
      `written to ${join(session.config.outDir, 'held-out.json')}\n`,
  );
}

/** Benchmark evaluation into <outDir>/eval: results.jsonl (resumed unless --fresh), report.{json,md,html}. */
async function benchmarkEval(
  session: Session,
  answering: { policy: RolloutPolicy; model: string },
  flags: Record<string, string | boolean | undefined>,
  io: CliIO,
): Promise<void> {
  const { config } = session;
  const outDir = join(config.outDir, 'eval');
  const dataDir = typeof flags['data-dir'] === 'string' ? resolve(flags['data-dir']) : defaultBenchmarkDir;
  const { policy, model } = answering;
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
      ...rolloutOptionsOf(config, flags.greedy === true),
      seed: config.seed,
      fresh: flags.fresh === true,
      grader,
      ...(typeof flags.window === 'string' ? { codeWindow: windowOf(flags.window) } : {}),
      codeJudgeMode: codeJudgeModeOf(flags['code-judge']),
      warn: (message) => io.err(`warning: ${message}\n`),
      onSources: (sources) => {
        for (const [name, source] of sources) io.err(`${name}: ${source}\n`);
      },
    });
    const paths = await writeBenchmarkReports(outDir, result);
    const judged =
      result.config.codeJudgeMode === undefined
        ? ''
        : `livecodebench: programs judged in the ${result.config.codeJudgeMode} mode` +
          (result.config.codeJudgeMode === 'livecodebench'
            ? " (as LiveCodeBench's own runner judges, comparable with published scores)\n"
            : ' (each test in a fresh process, as the training reward; --code-judge livecodebench compares with published scores)\n');
    io.out(
      `${benchmarkTable(result.reports)}\n\n${judged}${result.generated} samples generated, ${result.samples} in ` +
        `${result.resultsPath}\nreports: ${paths.markdown}, ${paths.html}, ${paths.json}\n`,
    );
  } catch (error) {
    // A wrong --data-dir or a results file that cannot be resumed is the user's to fix: no stack trace.
    if (
      error instanceof BenchmarkFormatError ||
      error instanceof BenchmarkResultsError ||
      error instanceof JudgeUnavailableError
    )
      throw new UsageError(error.message);
    throw error;
  } finally {
    await grader.close();
  }
}

/** --window FROM:TO (days YYYY-MM-DD, either end may be empty): LiveCodeBench's contest-date window. */
function windowOf(raw: string): { from?: string; to?: string } {
  const match = /^(\d{4}-\d{2}-\d{2})?:(\d{4}-\d{2}-\d{2})?$/.exec(raw);
  if (match === null)
    throw new UsageError(
      `--window: expected FROM:TO as YYYY-MM-DD:YYYY-MM-DD (either may be empty), got '${raw}'`,
    );
  return {
    ...(match[1] === undefined ? {} : { from: match[1] }),
    ...(match[2] === undefined ? {} : { to: match[2] }),
  };
}

/** --code-judge: how livecodebench's programs are judged (default faithful). */
function codeJudgeModeOf(raw: string | boolean | undefined): CodeJudgeMode {
  if (raw === undefined) return 'faithful';
  if (!CODE_JUDGE_MODES.includes(raw as CodeJudgeMode))
    throw new UsageError(`--code-judge: expected ${CODE_JUDGE_MODES.join(' or ')}, got '${String(raw)}'`);
  return raw as CodeJudgeMode;
}

/** Servers named by --endpoint (comma-separated base URLs); a malformed URL is a usage error. */
function endpointsOf(raw: string): string[] {
  const endpoints = raw.split(',').map((part) => part.trim());
  for (const endpoint of endpoints) {
    if (!isHttpUrl(endpoint))
      throw new UsageError(
        `--endpoint: '${endpoint}' is not a URL (expected http(s), e.g. http://127.0.0.1:8000)`,
      );
  }
  return endpoints;
}

/** Who answers: inference servers (--endpoint) or the session's local policy. */
function answeringPolicy(
  session: Session,
  flags: Record<string, string | boolean | undefined>,
): { policy: RolloutPolicy; model: string; close(): Promise<void> } {
  const { config } = session;
  if (typeof flags.endpoint !== 'string') {
    return {
      policy: session.rolloutPolicy,
      model: config.model.path ?? `embedded tiny model (seed ${config.seed})`,
      close: async () => undefined,
    };
  }
  const endpoints = endpointsOf(flags.endpoint);
  const { remote: settings } = config;
  const apiKey = apiKeyFromEnv();
  const served = typeof flags['served-model'] === 'string' ? flags['served-model'] : settings.model;
  // The servers differ (--endpoint, --api, --served-model); how they are asked is remote.*, as in remote training.
  const remote = new RemotePolicy({
    endpoints,
    api: flags.api === 'sglang' || flags.api === 'openai' ? flags.api : settings.api,
    ...(served === undefined ? {} : { model: served }),
    // The model's vocabulary, not the tokenizer's: a server may return a padding id (Qwen3: 151936 rows, 151669 ids).
    vocabSize: session.vocabSize,
    maxSequenceLength: session.contextLength,
    topLogprobs: settings.topLogprobs,
    maxConcurrentPerServer: settings.maxConcurrentPerServer,
    timeoutMs: settings.timeoutMs,
    maxAttempts: settings.maxAttempts,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return {
    policy: remote,
    model: `${served ?? 'served model'} at ${endpoints.join(', ')}`,
    close: () => remote.close(),
  };
}

export const evalCommand: CommandSpec = {
  name: 'eval',
  summary:
    'Evaluation of model.path or of served models (--endpoint): the held-out split, or benchmarks with --bench ' +
    '(math, GPQA-Diamond, LiveCodeBench)',
  flags: {
    endpoint: {
      type: 'string',
      doc: 'vLLM/SGLang-compatible servers answer instead of local weights: base URLs, comma-separated',
    },
    api: {
      type: 'string',
      doc: 'with --endpoint: openai (vLLM /v1/completions) or sglang (/generate)',
      default: 'remote.api',
    },
    'served-model': {
      type: 'string',
      doc: "with --endpoint: the served model's name",
      default: 'remote.model, else the first model the server lists',
    },
    bench: {
      type: 'string',
      doc: `benchmarks, comma-separated (${evalBenchmarkNames.join(', ')}) or all (the shipped math sets)`,
      default: 'the held-out split, no benchmark',
    },
    k: { type: 'string', doc: 'samples per problem with --bench', default: 'eval.samples' },
    limit: { type: 'string', doc: 'only the first n problems of each benchmark', default: 'every problem' },
    'data-dir': {
      type: 'string',
      doc: 'benchmark folder, one <name>/ folder per benchmark (math sets missing there: the copies @taorl/eval ships; gpqa_diamond and livecodebench: only there)',
    },
    window: {
      type: 'string',
      doc: "livecodebench's contest-date window FROM:TO, days YYYY-MM-DD, both included (e.g. the v6 problems)",
    },
    'code-judge': {
      type: 'string',
      doc:
        "how livecodebench's programs are judged: faithful (each test in a fresh process on real stdin, as the " +
        "training reward) or livecodebench (as LiveCodeBench's own runner, quirks included: scores comparable " +
        'with published ones)',
      default: 'faithful',
    },
    fresh: { type: 'boolean', doc: 'discard <outDir>/eval/results.jsonl instead of resuming it' },
    greedy: { type: 'boolean', doc: 'with --bench: greedy decoding instead of rollout.temperature sampling' },
  },
  checkFlags(flags) {
    if (flags.endpoint === undefined) {
      const stray = endpointOnlyFlags.filter((name) => flags[name] !== undefined);
      if (stray.length > 0) throw new UsageError(`--${stray.join(', --')} need(s) --endpoint`);
    } else endpointsOf(String(flags.endpoint));
    if (flags.api !== undefined && flags.api !== 'openai' && flags.api !== 'sglang')
      throw new UsageError(`--api: expected openai or sglang, got '${String(flags.api)}'`);
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
    if (typeof flags.window === 'string') windowOf(flags.window);
    codeJudgeModeOf(flags['code-judge']);
  },
  localPolicy: (flags) => flags.endpoint === undefined,
  async run(session, flags, io) {
    const answering = answeringPolicy(session, flags);
    try {
      if (flags.bench === undefined) await heldOutEval(session, answering.policy, io);
      else await benchmarkEval(session, answering, flags, io);
    } finally {
      await answering.close();
    }
  },
};
