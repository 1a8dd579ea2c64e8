import { ByteTokenizer, type ChatMessage, ChatTemplate, HfTokenizer, type Tokenizer } from '@taorl/data';
import { type BackendChoice, initBackend } from '@taorl/grpo';
import { createSandbox, type Sandbox } from '@taorl/sandbox';
import { ConfigError } from '../config/schema-dsl.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { createTinyPolicy, loadPolicy, type TransformerPolicy } from '../model/transformer-policy.js';
import { sandboxToolEnvironment } from '../rollout/sandbox-tools.js';
import type { ToolEnvironment } from '../rollout/tool-environment.js';
import { type RlComponents, rlComponents } from './components.js';

/** The live parts of a run: backend, tokenizer, chat template, policy, sandbox and the plug-ins. */
export interface Session {
  config: TrainerConfig;
  /** Where the config came from, for error messages. */
  source: string;
  backend: string;
  tokenizer: Tokenizer;
  template: ChatTemplate;
  policy: TransformerPolicy;
  sandbox: Sandbox;
  tools: ToolEnvironment;
  components: RlComponents;
  /** Chat-rendered prompt messages as token ids (the generation prompt opens the assistant turn). */
  promptIds(messages: readonly ChatMessage[]): Int32Array;
  close(): Promise<void>;
}

const backendChoice: Record<TrainerConfig['backend'], BackendChoice> = {
  wasm: 'wasm',
  cpu: 'cpu',
  tensorflow: 'node',
};

/** Longest prompt + response of the embedded model (the RoPE table size). */
const EMBEDDED_CONTEXT = 512;

/** Opens everything a command needs. Plug-in names are resolved first, so typos fail before anything starts. */
export async function openSession(config: TrainerConfig, source: string): Promise<Session> {
  const components = rlComponents(config, source);
  const report = await initBackend({ prefer: backendChoice[config.backend] });
  let tokenizer: Tokenizer;
  let template: ChatTemplate;
  let policy: TransformerPolicy;
  if (config.model.source === 'hf') {
    const path = config.model.path;
    if (path === undefined) throw new ConfigError(source, 'model.path', 'required when model.source is hf');
    const hf = await HfTokenizer.fromDir(path);
    tokenizer = hf;
    template = ChatTemplate.fromTokenizerConfig(hf.config);
    policy = await loadPolicy(path);
  } else {
    tokenizer = new ByteTokenizer();
    template = ChatTemplate.embedded();
    policy =
      config.model.path === undefined
        ? createTinyPolicy({
            vocabSize: tokenizer.vocabSize,
            maxPositionEmbeddings: EMBEDDED_CONTEXT,
            tokenShift: config.model.tokenShift,
            seed: config.seed,
          })
        : await loadPolicy(config.model.path);
  }
  const { sandbox: sandboxSpec } = config.tool;
  const sandbox = await createSandbox({ ...sandboxSpec.options, backend: sandboxSpec.name }).catch(
    (error: Error) => {
      throw new ConfigError(source, 'tool.sandbox', error.message);
    },
  );
  const tools = sandboxToolEnvironment(components.format, sandbox, config.tool);
  return {
    config,
    source,
    backend: report.tfBackend,
    tokenizer,
    template,
    policy,
    sandbox,
    tools,
    components,
    promptIds: (messages) => tokenizer.encode(template.render(messages, { addGenerationPrompt: true })),
    async close() {
      policy.dispose();
      await sandbox.close();
    },
  };
}
