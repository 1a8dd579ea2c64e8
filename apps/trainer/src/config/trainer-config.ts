import {
  bool,
  type Infer,
  int,
  num,
  optionalStr,
  type SectionField,
  section,
  str,
  strList,
} from './schema-dsl.js';

/**
 * Every knob of a run. Plug-ins (tool format, sandbox backend, estimator, shaper, filters, loss) are plain names
 * looked up in their package's registry when the run is assembled, so an ablation is a one-line config change and
 * a user-registered plug-in needs no change here. Defaults follow ../../docs/trainer.md (ALGORITHMS.md sources).
 */
export const trainerSchema = {
  seed: int('seed for data order, sampling and initialisation', 1, { min: 0 }),
  backend: str('TensorFlow.js backend', 'wasm', ['wasm', 'cpu', 'tensorflow'] as const),
  outDir: str('folder for metrics.jsonl, report.html and checkpoints', 'runs/taorl'),
  model: section('the policy', {
    source: str('embedded tiny model or a local Hugging Face folder', 'embedded', [
      'embedded',
      'hf',
    ] as const),
    path: optionalStr('Hugging Face folder (config.json, safetensors, tokenizer.json) when source is hf'),
    init: optionalStr('a checkpoint file of an earlier run to start from'),
  }),
  task: section('where prompts and golds come from', {
    name: str('arith-tool (the embedded generator) or file', 'arith-tool', ['arith-tool', 'file'] as const),
    file: optionalStr('RL prompts (verl JSONL or parquet) when name is file'),
    testFile: optionalStr('held-out prompts for evaluation when name is file'),
    testSize: int('held-out problems for evaluation', 500, { min: 1 }),
  }),
  tool: section('tool calls', {
    format: str('tool-call format name (@taorl/sandbox registry)', 'markdown'),
    sandbox: str('sandbox backend name (@taorl/sandbox registry)', 'local'),
    sandboxUrl: optionalStr('SandboxFusion endpoint when sandbox is sandboxfusion'),
    concurrency: int('tool calls executed at once', 2, { min: 1 }),
    timeoutMs: int('wall-clock limit per call', 5000, { min: 1 }),
    observationChars: int('observation budget, head and tail kept', 512, { min: 16 }),
  }),
  rollout: section('multi-turn generation', {
    maxTurns: int('tool calls per trajectory at most', 5, { min: 0 }),
    maxResponseTokens: int('response-length budget (generated + observation tokens)', 256, { min: 1 }),
    temperature: num('sampling temperature', 1.0, { above: 0 }),
    topP: num('nucleus sampling mass', 1.0, { above: 0, max: 1 }),
    topK: int('top-k sampling (0 = off)', 0, { min: 0 }),
  }),
  sft: section('supervised fine-tuning on end-to-end tool trajectories', {
    source: str('generated arith-tool traces or a file', 'generator', ['generator', 'file'] as const),
    file: optionalStr('SFT conversations (messages + tools JSONL) when source is file'),
    examples: int('generated traces', 4000, { min: 1 }),
    steps: int('optimizer steps', 300, { min: 0 }),
    minutes: num('wall-clock budget; 0 = no limit (steps still apply)', 0, { min: 0 }),
    batchSize: int('sequences per step', 16, { min: 1 }),
    lr: num('peak learning rate', 1e-3, { above: 0 }),
    warmupFraction: num('linear warm-up share of the steps', 0.1, { min: 0, max: 1 }),
    minLrRatio: num('cosine floor as a share of the peak', 0.1, { min: 0, max: 1 }),
  }),
  rl: section('TAO-RL / GRPO', {
    steps: int('RL steps', 20, { min: 0 }),
    minutes: num('wall-clock budget; 0 = no limit', 0, { min: 0 }),
    groups: int('questions per step', 8, { min: 1 }),
    groupSize: int('samples per question', 8, { min: 1 }),
    maxGenBatches: int('rollout batches per step at most (dynamic-sampling refill)', 3, { min: 1 }),
    lr: num('learning rate', 5e-5, { above: 0 }),
    estimator: str('advantage estimator name (@taorl/advantage registry)', 'grpo'),
    filters: strList('trajectory filters in order (@taorl/filter registry)', [
      'executionValidity',
      'answerDiscriminability',
    ]),
    executionValidityMode: str('C1 drops or masks invalid trajectories', 'drop', ['drop', 'mask'] as const),
    keepNoToolTrajectories: bool('C1 keeps trajectories that made no tool call', true),
    minGroupSize: int('C2 drops groups with fewer survivors', 2, { min: 1 }),
    overlong: section('DAPO overlong reward shaping', {
      enabled: bool('apply the soft overlong penalty', true),
      bufferFraction: num('Lbuf as a share of maxResponseTokens', 0.2, { above: 0, max: 1 }),
      factor: num('penalty factor', 1.0, { min: 0 }),
    }),
    shaper: section('entropy-guided advantage shaping', {
      name: str('entropy shaper name (@taorl/advantage registry)', 'tao'),
      alpha: num('bonus scale', 0.2, { min: 0 }),
      kappa: num('bonus cap divisor: psi <= |A| / kappa', 2, { above: 0 }),
      quantile: num('q_H: top share of post-tool tokens by entropy', 0.2, { above: 0, max: 1 }),
    }),
    loss: section('policy loss', {
      name: str('policy loss name (@taorl/grpo registry)', 'vanilla'),
      epsLow: num('clip low', 0.2, { min: 0 }),
      epsHigh: num('clip high (clip-higher)', 0.28, { min: 0 }),
      dualClip: num('dual-clip constant c for negative advantages', 3.0, { above: 1 }),
      aggregation: str('token aggregation', 'token-mean', [
        'token-mean',
        'seq-mean-token-sum',
        'seq-mean-token-mean',
        'seq-mean-token-sum-norm',
      ] as const),
      klCoef: num('KL coefficient (0 = no reference policy)', 0, { min: 0 }),
      entropyCoef: num('entropy bonus coefficient', 0, { min: 0 }),
    }),
    gradClip: num('global grad-norm clip', 1.0, { above: 0 }),
    microBatch: int('sequences per gradient micro-batch', 16, { min: 1 }),
    checkpointEvery: int('steps between checkpoints (0 = only at the end)', 10, { min: 0 }),
  }),
  eval: section('held-out evaluation', {
    samples: int('samples per problem (K of Avg@K / Pass@K)', 1, { min: 1 }),
    greedy: bool('greedy decoding (otherwise rollout.temperature)', true),
  }),
} as const;

export type TrainerConfig = Infer<SectionField<typeof trainerSchema>>;
