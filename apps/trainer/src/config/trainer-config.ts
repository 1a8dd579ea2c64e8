import { availableParallelism } from 'node:os';
import { DEFAULT_CHAIN_KNOBS } from '@taorl/data';
import { infraRetryDefaults, remotePolicyDefaults } from '@taorl/rollout';
import { z } from 'zod';
import {
  bool,
  httpUrlList,
  int,
  moduleList,
  nonEmptyStr,
  num,
  oneOf,
  optionalStr,
  plugin,
  pluginList,
  section,
} from './fields.js';

/** The longest delay a Node timer takes (setTimeout's 32-bit milliseconds): longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Worker threads at most: each holds a replica of the policy and a backend of its own. */
const MAX_WORKER_THREADS = 1024;
/** Requests or lanes in flight at once at most (remote.maxConcurrentPerServer, rollout.lanes). */
const MAX_CONCURRENCY = 4096;

/**
 * Every knob of a run. Plug-ins (tool format, sandbox backend, estimator, shaper, filters, loss) are plain names
 * looked up in their package's registry when the run is assembled, so an ablation is a one-line config change and
 * a user-registered plug-in needs no change here. Defaults follow ../../docs/trainer.md (ALGORITHMS.md sources).
 */
export const trainerSchema = z.strictObject({
  seed: int('seed for data order, sampling and initialisation', 1, { min: 0 }),
  backend: oneOf(
    'TensorFlow.js backend (tensorflow: libtensorflow, through tfjs-node-gpu where installed, else tfjs-node)',
    'wasm',
    ['wasm', 'cpu', 'tensorflow'] as const,
  ),
  outDir: nonEmptyStr('folder for metrics.jsonl, report.html and checkpoints', 'runs/taorl'),
  workers: int(
    'the worker pool: threads, each with its own wasm backend and a replica of the policy, that generate rollouts ' +
      "and evaluations (lanes spread over them), compute the RL update's micro-batch gradients and SFT's gradient " +
      "shards (a step's batch cut into N); 1 = the main thread does all of it (default: the cores available). " +
      "Trajectories and RL updates are the same for any N; SFT's weights equal N = 1's up to float summation order",
    () => availableParallelism(),
    { min: 1, max: MAX_WORKER_THREADS },
  ),
  plugins: moduleList(
    'plug-in modules imported before the run is assembled (in every worker thread too), so that the plug-ins ' +
      "they register are selectable by name: paths or package names, resolved from the config file's folder " +
      '(docs/plug-ins.md); --plugin adds more',
  ),
  pluginLoadTimeoutMs: int(
    'how long each plug-in module may take to load (its top-level await included), in the main thread and in ' +
      'each worker thread; past it the command fails naming the module',
    60_000,
    { min: 1, max: 3_600_000 },
  ),
  model: section('the policy', {
    source: oneOf(
      'embedded: the tiny model, fresh (or a saved one from model.path); base: the tiny model pretrained on the ' +
        "arith-tool pretrain mix, shipped with the trainer (apps/trainer/base/, the demo's start); hf: a local " +
        'Hugging Face folder',
      'embedded',
      ['embedded', 'base', 'hf'] as const,
    ),
    path: optionalStr(
      "Hugging Face folder to load (config.json + safetensors; tokenizer.json too for hf), such as a run's policy/; " +
        'embedded: a saved tiny policy; unset for base',
    ),
    tokenShift: bool(
      'embedded tiny model only: add a previous-token embedding, which makes copying digits learnable sooner',
      false,
    ),
  }),
  task: section('where prompts and golds come from', {
    name: oneOf(
      'arith-tool (the embedded generator), chain-tool (the embedded generator whose knobs, task.chain, set the ' +
        "preconditions of TAO-RL's mechanisms; docs/explanation/chain-tool-task.md), file (verl prompts with gold " +
        'answers) or code (programs judged by their tests: the code-correctness reward)',
      'arith-tool',
      ['arith-tool', 'chain-tool', 'file', 'code'] as const,
    ),
    file: optionalStr(
      'RL prompts when name is file (verl JSONL or parquet) or code (taorl code JSONL or LiveCodeBench JSONL; ' +
        'unset: the embedded stdin/stdout problems)',
    ),
    testFile: optionalStr('held-out prompts for evaluation when name is file or code'),
    testSize: int('held-out problems for evaluation', 500, { min: 1 }),
    mix: oneOf(
      'arith-tool problems and demonstrations: classic (every kind, mostly right demonstrations) or strategy ' +
        '(short answers, demonstrations with strategy mistakes that RL can fix; docs/explanation/arith-tool-task.md) or pretrain ' +
        "(other operations, every demonstration right: the demo's base model)",
      'classic',
      ['classic', 'strategy', 'pretrain'] as const,
    ),
    chain: section('chain-tool problems (task.name chain-tool; docs/explanation/chain-tool-task.md)', {
      luckyShare: num(
        "share of problems whose answer is on the question's surface (a last max(x,c) step), answerable right " +
          'without a valid execution: what C1 acts on',
        DEFAULT_CHAIN_KNOBS.luckyShare,
        { min: 0, max: 1 },
      ),
      loopShare: num(
        'share of problems ending with a loop (while x is odd, one more call) whose every decision, call again or ' +
          'answer, depends on the last output: the post-tool decisions the entropy bonus acts on',
        DEFAULT_CHAIN_KNOBS.loopShare,
        { min: 0, max: 1 },
      ),
      minSteps: int('fewest calls of a chain before its loop', DEFAULT_CHAIN_KNOBS.minSteps, { min: 2 }),
      maxSteps: int('most calls of a chain before its loop', DEFAULT_CHAIN_KNOBS.maxSteps, { min: 2 }),
      maxCalls: int(
        'most calls a solution may need, the loop included (problems that need more are drawn again)',
        DEFAULT_CHAIN_KNOBS.maxCalls,
        { min: 2 },
      ),
    }),
  }),
  tool: section('tool calls', {
    format: plugin('tool-call format (@taorl/sandbox registry)', 'markdown'),
    turns: oneOf(
      "tool-turn layout: template (the model ends its turn after a call and its chat template's tool turn " +
        'follows, with the tools given to the template), inline (the observation is inserted inside the ' +
        "assistant's turn, rendered by the format) or auto (template for an hf checkpoint unless tool.format is " +
        'markdown or tags, the single-turn layouts; inline otherwise) (docs/explanation/rollout.md, "Tool-turn ' +
        'layouts")',
      'auto',
      ['auto', 'template', 'inline'] as const,
    ),
    instructions: nonEmptyStr(
      'a system message in front of every RL and held-out prompt, telling the model how to call the tool: none ' +
        "(the prompts as they are), auto (the tool format's instructions: how to call the tool and where the " +
        'output comes back, then, except for task code, that the final answer goes in \\boxed{}) or your own ' +
        "text (the whole system message); added after a prompt's own leading system message, in the same " +
        'message (docs/trainer.md, "Tool instructions")',
      'none',
    ),
    sandbox: plugin('sandbox backend and its options (@taorl/sandbox registry)', 'local'),
    timeoutMs: int('wall-clock limit per call', 5000, { min: 1, max: MAX_TIMER_MS }),
    observationChars: int('observation budget, head and tail kept', 512, { min: 16 }),
    infraRetries: int(
      'extra attempts of a call that failed in the sandbox itself (sandbox_error: server unreachable, HTTP 5xx, ' +
        "a transport timeout, a crashed worker, a refused request), after the backend's own retries",
      infraRetryDefaults.infraRetries,
      { min: 0, max: 100 },
    ),
    infraRetryDelayMs: int(
      'wait before the first such extra attempt, doubled for each next one',
      infraRetryDefaults.infraRetryDelayMs,
      { min: 0, max: MAX_TIMER_MS },
    ),
    maxInfraFailureRate: num(
      "largest share of an RL step's tool calls that may still fail in the sandbox itself after the retries; past " +
        "it the step fails with the sandbox's message instead of training (below it, their trajectories are " +
        'dropped as tool-outage, never scored as wrong answers)',
      0.05,
      { min: 0, max: 1 },
    ),
  }),
  rollout: section('multi-turn generation', {
    maxTurns: int('tool calls per trajectory at most', 5, { min: 0 }),
    maxResponseTokens: int('response-length budget (generated + observation tokens)', 256, { min: 1 }),
    temperature: num('sampling temperature', 1.0, { above: 0 }),
    topP: num('nucleus sampling mass', 1.0, { above: 0, max: 1 }),
    topK: int('top-k sampling (0 = off)', 0, { min: 0 }),
    lanes: int('batch lanes taking turns on the model, so tool calls overlap generation', 2, {
      min: 1,
      max: MAX_CONCURRENCY,
    }),
    unparseableCall: oneOf(
      'a segment that stops on a tool stop string without a call that parses: observe = answer with a parse ' +
        'error and go on; end = end the trajectory; text = keep it as plain text and go on',
      'end',
      ['observe', 'end', 'text'] as const,
    ),
    maxWallMs: int('wall-time budget per trajectory in ms, checked at each turn (0 = none)', 0, {
      min: 0,
      max: MAX_TIMER_MS,
    }),
    maxRepeatedCalls: int('the same code called this many times in a row ends the trajectory (0 = off)', 0, {
      min: 0,
    }),
    checkTokenIntegrity: bool(
      'check every trajectory against the sampled and observed ids (@taorl/rollout checkTokenIntegrity)',
      true,
    ),
  }),
  sft: section('supervised fine-tuning on end-to-end tool trajectories', {
    source: oneOf(
      'generated traces of the embedded task (chain-tool with task.name chain-tool, arith-tool otherwise) or a file',
      'generator',
      ['generator', 'file'] as const,
    ),
    file: optionalStr('SFT conversations (messages + tools JSONL) when source is file'),
    examples: int('generated traces', 4000, { min: 1 }),
    steps: int('optimizer steps', 300, { min: 0 }),
    minutes: num('wall-clock budget; 0 = no limit (steps still apply)', 0, { min: 0 }),
    batchSize: int('sequences per step', 16, { min: 1 }),
    batching: oneOf(
      'random: shuffled batches; length: length-grouped (least padding); mixed-length: length-grouped with a ' +
        'quarter of each batch from the shortest items, so no batch holds only short traces',
      'mixed-length',
      ['random', 'length', 'mixed-length'] as const,
    ),
    learningRate: num('peak learning rate', 1e-3, { above: 0 }),
    warmupFraction: num('linear warm-up share of the steps', 0.1, { min: 0, max: 1 }),
    minLrRatio: num('cosine floor as a share of the peak', 0.1, { min: 0, max: 1 }),
    checkpointEvery: int('steps between checkpoints of `taorl sft` (0 = only at the end)', 100, { min: 0 }),
  }),
  rl: section('TAO-RL / GRPO', {
    steps: int('RL steps', 20, { min: 0 }),
    minutes: num('wall-clock budget; 0 = no limit', 0, { min: 0 }),
    // Bounded so that a typo (1e300) is a config error, not a RangeError or an out-of-memory crash mid-run.
    groups: int('questions per step', 8, { min: 1, max: 65536 }),
    groupSize: int('samples per question', 8, { min: 1, max: 4096 }),
    maxGenBatches: int('rollout batches per step at most (dynamic-sampling refill)', 3, { min: 1 }),
    learningRate: num('learning rate', 5e-5, { above: 0 }),
    estimator: plugin('advantage estimator (@taorl/advantage registry)', 'grpo'),
    filters: pluginList('trajectory filters in order (@taorl/filter registry); [] = none', ['tool-aware']),
    overlong: section('DAPO overlong reward shaping', {
      enabled: bool('apply the soft overlong penalty', true),
      bufferFraction: num('Lbuf as a share of maxResponseTokens', 0.2, { above: 0, max: 1 }),
      factor: num('penalty factor', 1.0, { min: 0 }),
      length: oneOf(
        'the length penalised: response = policy + observation tokens (what maxResponseTokens budgets and ' +
          'truncates); policy = the sampled tokens only (@taorl/rollout policyTokenCount)',
        'response',
        ['response', 'policy'] as const,
      ),
    }),
    shaper: plugin('entropy-guided advantage shaper (@taorl/advantage registry)', 'tao'),
    loss: plugin(
      'policy loss and its config: clipLow, clipHigh, dualClip, aggregation, klCoef, entropyCoef (@taorl/grpo)',
      'vanilla',
    ),
    oldLogProbs: z
      .enum(['trainer', 'rollout'])
      .optional()
      .describe(
        'pi_old of the loss: trainer (the trained policy scores the batch before the update; the clip then acts on ' +
          "policy change only, and the rollout's log-probs feed the correction's mismatch metrics) or rollout (the " +
          'log-probs the rollout sampled with); default trainer in remote mode, rollout with local rollouts (the same model)',
      ),
    correction: section(
      "rollout correction (verl's, Yao et al. 2025): weigh each token by pi_old / pi_rollout, truncated (TIS) or " +
        "zeroed outside a band (IcePop), and reject tokens or sequences by verl's divergence modes; needs " +
        'rl.oldLogProbs trainer (docs/explanation/policy-update.md)',
      {
        enabled: z
          .boolean()
          .optional()
          .describe(
            'apply the weights and the rejection (off: the mismatch is still measured); default on in remote mode ' +
              "with the trainer's pi_old (an engine samples, possibly from weights remote.reloadEvery steps old), " +
              'off otherwise',
          ),
        weights: oneOf(
          'importance weights per token (TIS) or sequence, or none (verl rollout_is)',
          'sequence',
          ['token', 'sequence', 'none'] as const,
        ),
        threshold: z
          .union([z.number(), z.string()])
          .default(2)
          .describe(
            'verl rollout_is_threshold: a number truncates the weights at it (TIS); a "lower_upper" string, e.g. ' +
              '"0.5_5", zeroes the weights outside [lower, upper] (IcePop)',
          ),
        batchNormalize: bool(
          'divide the weights by their batch mean (verl rollout_is_batch_normalize)',
          false,
        ),
        rejection: z
          .string()
          .default('none')
          .describe(
            'verl rollout_rs: none, or modes joined by commas that a token must all pass: token_k1, token_k2, ' +
              'token_k3, seq_sum_k1..3, seq_mean_k1..3, seq_max_k2, seq_max_k3 (k1 the ratio, k2 = x^2 / 2, ' +
              'k3 = e^x - 1 - x of x = log pi_old - log pi_rollout)',
          ),
        rejectionThreshold: z
          .union([z.number(), z.string()])
          .optional()
          .describe(
            'verl rollout_rs_threshold, required with a rejection: one for all modes or one per mode joined by ' +
              'commas; k1 modes take "lower_upper" or an upper bound (lower = 1 / upper), k2 / k3 an upper bound',
          ),
      },
    ),
    maxGradNorm: num('global grad-norm clip (SFT too)', 1.0, { above: 0 }),
    microBatchRows: int('most sequences per gradient micro-batch (split into equal parts)', 16, { min: 1 }),
    checkpointEvery: int('steps between checkpoints (0 = only at the end)', 10, { min: 0 }),
  }),
  remote: section(
    'remote mode: RL rollouts from vLLM / SGLang-compatible servers (or taorl serve), training local; the trained ' +
      'weights are pushed to every server with POST /update_weights_from_disk',
    {
      endpoints: httpUrlList(
        'base URLs of inference servers running the model.path architecture and tokenizer, e.g. ' +
          '[http://10.0.0.5:8000]; [] = rollouts from the local policy',
      ),
      api: oneOf(
        "openai: POST /v1/completions (vLLM); sglang: POST /generate (SGLang's native API)",
        'openai',
        ['openai', 'sglang'] as const,
      ),
      model: optionalStr('the served model name for api openai; default: the first model of GET /v1/models'),
      reloadEvery: int(
        'RL steps between weight pushes to the servers (1 = every step, rollouts never lag the trainer)',
        1,
        { min: 1 },
      ),
      weightsDir: optionalStr(
        'folder of the pushed weights (step-<n> Hugging Face folders, the last 2 kept); every server must read ' +
          'it at the same absolute path; default <outDir>/served-weights',
      ),
      timeoutMs: int(
        'per request: a generation, or a weight reload on one server',
        remotePolicyDefaults.timeoutMs,
        { min: 1, max: MAX_TIMER_MS },
      ),
      maxAttempts: int(
        'attempts per sample across servers on transient failures (connection, timeout, HTTP 5xx / 429)',
        remotePolicyDefaults.maxAttempts,
        { min: 1, max: 100 },
      ),
      maxConcurrentPerServer: int(
        'requests in flight per server at most',
        remotePolicyDefaults.maxConcurrentPerServer,
        { min: 1, max: MAX_CONCURRENCY },
      ),
      topLogprobs: int(
        'top log-probs per token asked for the entropy estimate (0 = none: the sampled token surprisal)',
        remotePolicyDefaults.topLogprobs,
        { min: 0 },
      ),
      templateCheck: int(
        "trajectories of each rollout batch checked against the chat template's rendering of their messages " +
          '(template tool turns only; the metric templateDriftShare, the first drift logged; 0 = off)',
        8,
        { min: 0 },
      ),
    },
  ),
  demo: section('taorl demo: SFT, then RL against the same compute of more SFT', {
    moreSftSteps: int(
      "SFT steps of the baseline that continues SFT instead of RL: RL's wall time on the reference machine, " +
        'in SFT steps (a step count, so the result does not depend on machine speed)',
      300,
      { min: 0 },
    ),
    greedy: bool('also evaluate each policy greedily (one sample per problem)', true),
  }),
  eval: section('held-out evaluation', {
    samples: int('samples per problem (K of Avg@K / Pass@K)', 1, { min: 1 }),
    greedy: bool('greedy decoding (otherwise rollout.temperature)', true),
  }),
});

export type TrainerConfig = z.output<typeof trainerSchema>;
