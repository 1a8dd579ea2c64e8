import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ByteTokenizer,
  type ChatMessage,
  ChatTemplate,
  type TemplateToolTurns,
  type Tokenizer,
} from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';
import { type BackendChoice, initBackend } from '@taorl/grpo';
import { paddedVocabTokenizer, parseHfConfig, type TransformerPolicy } from '@taorl/model';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';
import type { RolloutPolicy, ToolEnvironment } from '@taorl/rollout';
import { sandboxToolEnvironment, templateToolTurns } from '@taorl/rollout';
import { checkSandboxHealth, createSandbox, localIsolationProblem, type Sandbox } from '@taorl/sandbox';
import { ConfigError } from '../config/config-error.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { basePolicyPath } from '../util/shipped.js';
import { PolicyWorkers } from '../workers/policy-workers.js';
import type { TokenizerSource } from '../workers/tokenizer-source.js';
import { fromRegistry, type RlComponents, rlComponents } from './components.js';

/** The live parts of a run: backend, tokenizer, chat template, policy, sandbox and the plug-ins. */
export interface Session {
  config: TrainerConfig;
  /** Where the config came from, for error messages. */
  source: string;
  backend: string;
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** The local policy (throws when the session was opened with `localPolicy: false`). */
  readonly policy: TransformerPolicy;
  /**
   * What rollouts and evaluations sample from: the local policy itself (`workers: 1`) or `workers`,
   * which get its current weights before every rollout batch.
   */
  readonly rolloutPolicy: RolloutPolicy;
  /**
   * The one worker pool (config `workers` > 1): threads with replicas of the local policy, which generate the
   * rollouts and evaluations, compute the RL update's micro-batch gradients and SFT's gradient shards; null with 1
   * (the main thread does all of it).
   */
  readonly workers: PolicyWorkers | null;
  /** Longest prompt + response the model takes (its RoPE table size). */
  contextLength: number;
  /**
   * The model's output vocabulary (config.json vocab_size): the ids a policy or an inference server may return. It
   * may exceed the tokenizer's (`tokenizer` then decodes the padding ids as '', see paddedVocabTokenizer).
   */
  vocabSize: number;
  sandbox: Sandbox;
  tools: ToolEnvironment;
  /**
   * The chat template's tool turns when tool.turns resolves to template (null: the inline layout): prompts are
   * then rendered with its tools, and the tool environment inserts its tool turns.
   */
  toolTurns: TemplateToolTurns | null;
  components: RlComponents;
  /**
   * Chat-rendered prompt messages as token ids (the generation prompt opens the assistant turn), with the tools
   * given to the template in the template layout.
   */
  promptIds(messages: readonly ChatMessage[]): Int32Array;
  close(): Promise<void>;
}

/**
 * The tfjs backends each config name may start, in order: `tensorflow` is libtensorflow through
 * @tensorflow/tfjs-node-gpu where it is installed (a GPU machine), else @tensorflow/tfjs-node.
 */
export const backendCandidates: Record<TrainerConfig['backend'], BackendChoice | readonly BackendChoice[]> = {
  wasm: 'wasm',
  cpu: 'cpu',
  tensorflow: ['node-gpu', 'node'],
};

/** Longest prompt + response of the embedded model (the RoPE table size). */
const EMBEDDED_CONTEXT = 512;

export interface SessionOptions {
  /**
   * Load the local policy's weights (default true). False for commands whose answers come from inference servers
   * (`taorl eval --endpoint`): the tokenizer and template still load, `policy` then throws when used.
   */
  localPolicy?: boolean;
}

interface ModelShape {
  contextLength: number;
  vocabSize: number;
}

/** The model's context length and vocabulary from its config.json, without loading its weights. */
function configuredShape(dir: string): ModelShape {
  const path = join(dir, 'config.json');
  const config = parseHfConfig(JSON.parse(readFileSync(path, 'utf8')), path);
  return { contextLength: config.maxPositionEmbeddings, vocabSize: config.vocabSize };
}

/** The tool formats that are single-turn layouts by name: tool.turns auto keeps them inline. */
const SINGLE_TURN_FORMATS = new Set(['markdown', 'tags']);

/**
 * Whether tool turns are the chat template's: tool.turns template, or auto for an hf checkpoint (it has its own
 * template) whose tool format is not one of the single-turn layouts.
 */
function templateLayout(config: TrainerConfig): boolean {
  const { turns, format } = config.tool;
  if (turns !== 'auto') return turns === 'template';
  return config.model.source === 'hf' && !SINGLE_TURN_FORMATS.has(format.name);
}

/**
 * The configured sandbox. The local one, where it cannot isolate (no bubblewrap, no python3, no user namespaces)
 * and isolation is required, gives way to the pyodide backend (Python in WebAssembly: no python3, bubblewrap or
 * root needed, a weaker boundary; docs/explanation/sandbox.md) with a one-line notice on stderr, keeping the
 * configured `workers` and `limits`.
 */
async function openToolSandbox(spec: TrainerConfig['tool']['sandbox']): Promise<Sandbox> {
  const { name, options } = spec;
  if (name === 'local' && (options.isolation ?? 'required') === 'required') {
    const problem = await localIsolationProblem(options);
    if (problem !== null) {
      process.stderr.write(
        `taorl: the local sandbox cannot run here (${problem.split('\n')[0]}); tool calls run in the pyodide ` +
          'backend (Python in WebAssembly, a weaker boundary than bubblewrap)\n',
      );
      const { workers, limits } = options as { workers?: number; limits?: object };
      return createSandbox({ backend: 'pyodide', workers, limits });
    }
  }
  return createSandbox({ ...options, backend: name });
}

/** Opens everything a command needs. Plug-in names are resolved first, so typos fail before anything starts. */
export async function openSession(
  config: TrainerConfig,
  source: string,
  options: SessionOptions = {},
): Promise<Session> {
  const components = rlComponents(config, source);
  const report = await initBackend({ prefer: backendCandidates[config.backend] });
  const withPolicy = options.localPolicy !== false;
  let tokenizer: Tokenizer;
  let template: ChatTemplate;
  let policy: TransformerPolicy | null = null;
  let configured: ModelShape | null = null;
  let tokenizerSource: TokenizerSource = { kind: 'byte' };
  if (config.model.source === 'hf') {
    const path = config.model.path;
    if (path === undefined) throw new ConfigError(source, 'model.path', 'required when model.source is hf');
    tokenizerSource = { kind: 'hf', dir: path };
    const hf = await loadHfTokenizer(path);
    tokenizer = hf;
    template = ChatTemplate.fromTokenizerConfig(hf.config);
    if (withPolicy) policy = await loadPolicy(path);
    else configured = configuredShape(path);
  } else {
    tokenizer = new ByteTokenizer();
    template = ChatTemplate.embedded();
    if (config.model.source === 'base' && config.model.path !== undefined) {
      throw new ConfigError(
        source,
        'model.path',
        'leave unset when model.source is base (the shipped base is loaded)',
      );
    }
    const path = config.model.source === 'base' ? basePolicyPath() : config.model.path;
    if (withPolicy) {
      policy =
        path === undefined
          ? createTinyPolicy({
              vocabSize: tokenizer.vocabSize,
              maxPositionEmbeddings: EMBEDDED_CONTEXT,
              tokenShift: config.model.tokenShift,
              seed: config.seed,
            })
          : await loadPolicy(path);
    } else if (path !== undefined) configured = configuredShape(path);
  }
  const { contextLength, vocabSize }: ModelShape =
    policy !== null
      ? { contextLength: policy.maxSequenceLength, vocabSize: policy.vocabSize }
      : (configured ?? { contextLength: EMBEDDED_CONTEXT, vocabSize: tokenizer.vocabSize });
  tokenizer = paddedVocabTokenizer(tokenizer, vocabSize);
  const toolTurns = templateLayout(config)
    ? fromRegistry(source, 'tool.turns', () => templateToolTurns(template, tokenizer, components.format))
    : null;
  const { sandbox: sandboxSpec } = config.tool;
  const sandbox = await openToolSandbox(sandboxSpec).catch((error: Error) => {
    throw new ConfigError(source, 'tool.sandbox', error.message);
  });
  // Before anything relies on it: a sandbox that cannot run a trivial program would turn every tool call of the
  // run into an outage.
  await checkSandboxHealth(sandbox).catch(async (error: Error) => {
    await sandbox.close();
    throw new ConfigError(source, 'tool.sandbox', error.message);
  });
  const tools = sandboxToolEnvironment(components.format, sandbox, {
    ...config.tool,
    ...(toolTurns === null ? {} : { toolTurns }),
  });
  const local = policy;
  const withoutPolicy = () =>
    new Error('this command runs without local weights (inference servers answer): no session.policy');
  const { workers } = config;
  let pool: PolicyWorkers | null = null;
  const localWorkers = (policy: TransformerPolicy) => {
    if (workers > 1) pool ??= new PolicyWorkers(policy, workers, tokenizerSource);
    return pool;
  };
  return {
    config,
    source,
    backend: report.tfBackend,
    tokenizer,
    template,
    get policy(): TransformerPolicy {
      if (local === null) throw withoutPolicy();
      return local;
    },
    get rolloutPolicy(): RolloutPolicy {
      if (local === null) throw withoutPolicy();
      return localWorkers(local) ?? local;
    },
    get workers(): PolicyWorkers | null {
      if (local === null) throw withoutPolicy();
      return localWorkers(local);
    },
    contextLength,
    vocabSize,
    sandbox,
    tools,
    toolTurns,
    components,
    promptIds: (messages) =>
      tokenizer.encode(
        template.render(messages, {
          addGenerationPrompt: true,
          ...(toolTurns === null ? {} : { tools: toolTurns.tools }),
        }),
      ),
    async close() {
      await pool?.dispose();
      local?.dispose();
      await sandbox.close();
    },
  };
}
