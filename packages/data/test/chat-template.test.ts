import { describe, expect, it } from 'vitest';
import { ByteTokenizer, type ChatMessage, ChatTemplate, type ToolSchema, toSftExample } from '../src/index';
import { qwen3 } from './qwen3';

const tools: ToolSchema[] = [
  {
    type: 'function',
    function: {
      name: 'python',
      description: 'Run Python code.',
      parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
];

const toolConversation: ChatMessage[] = [
  { role: 'system', content: 'You are a careful solver.' },
  { role: 'user', content: 'What is 2**10?' },
  {
    role: 'assistant',
    content: 'Let me compute it.',
    tool_calls: [{ type: 'function', function: { name: 'python', arguments: { code: 'print(2**10)' } } }],
  },
  { role: 'tool', content: '1024' },
  { role: 'assistant', content: 'The answer is \\boxed{1024}.' },
];

// Built by hand from the format Qwen3's template documents (ChatML turns, a "# Tools" system block listing each
// tool as JSON inside <tools>, <tool_call> JSON in the assistant turn, tool results as <tool_response> in a
// user turn, and an empty <think> block opening the final assistant turn after the last user query).
const toolJson =
  '{"type": "function", "function": {"name": "python", "description": "Run Python code.", "parameters": ' +
  '{"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}';
const qwen3Reference =
  '<|im_start|>system\nYou are a careful solver.\n\n# Tools\n\nYou may call one or more functions to assist with ' +
  'the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  `${toolJson}\n</tools>\n\nFor each function call, return a json object with function name and arguments ` +
  'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": ' +
  '<args-json-object>}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\nWhat is 2**10?<|im_end|>\n' +
  '<|im_start|>assistant\nLet me compute it.\n<tool_call>\n{"name": "python", "arguments": {"code": "print(2**10)"}}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\n<tool_response>\n1024\n</tool_response><|im_end|>\n' +
  '<|im_start|>assistant\n<think>\n\n</think>\n\nThe answer is \\boxed{1024}.<|im_end|>\n';

describe('ChatTemplate with the Qwen3 template', () => {
  it('renders system, user, assistant tool calls, tool results and tools exactly as documented', async () => {
    const tokenizer = await qwen3();
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    expect(template.render(toolConversation, { tools })).toBe(qwen3Reference);
  });

  it('adds the generation prompt, with an empty think block when thinking is off', async () => {
    const template = ChatTemplate.fromTokenizerConfig((await qwen3()).config);
    const messages: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
    expect(template.render(messages, { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(
      template.render(messages, { addGenerationPrompt: true, variables: { enable_thinking: false } }),
    ).toBe('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  });

  it('says which template is missing', () => {
    expect(() => ChatTemplate.fromTokenizerConfig({})).toThrow('has no chat_template named "default"');
  });
});

describe('the embedded template', () => {
  it('keeps tool results inside the assistant turn in the markdown format', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Q: 12*34=?' },
      { role: 'assistant', content: '```python\nprint(12*34)\n```\n' },
      { role: 'tool', content: '408' },
      { role: 'assistant', content: 'A: \\boxed{408}' },
    ];
    const template = ChatTemplate.embedded();
    expect(template.render(messages)).toBe(
      '<|im_start|>user\nQ: 12*34=?<|im_end|>\n<|im_start|>assistant\n```python\nprint(12*34)\n```\n' +
        '```output\n408\n```\nA: \\boxed{408}<|im_end|>\n',
    );
    expect(template.render(messages.slice(0, 1), { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nQ: 12*34=?<|im_end|>\n<|im_start|>assistant\n',
    );
  });
});

function maskedText(
  example: { inputIds: Int32Array; lossMask: Uint8Array },
  decode: (ids: number[]) => string,
) {
  const runs: string[] = [];
  let run: number[] = [];
  example.lossMask.forEach((m, i) => {
    if (m === 1) run.push(example.inputIds[i] as number);
    else if (run.length > 0) {
      runs.push(decode(run));
      run = [];
    }
  });
  if (run.length > 0) runs.push(decode(run));
  return runs;
}

describe('toSftExample', () => {
  it('masks exactly the assistant tokens of a Qwen3 tool conversation', async () => {
    const tokenizer = await qwen3();
    const example = toSftExample({ messages: toolConversation, tools }, tokenizer);
    expect(tokenizer.decode(example.inputIds)).toBe(qwen3Reference);
    expect(maskedText(example, (ids) => tokenizer.decode(ids))).toEqual([
      'Let me compute it.\n<tool_call>\n{"name": "python", "arguments": {"code": "print(2**10)"}}\n</tool_call><|im_end|>',
      '<think>\n\n</think>\n\nThe answer is \\boxed{1024}.<|im_end|>',
    ]);
  });

  it('locates the assistant text when the generation prompt differs from the rendered turn', async () => {
    // With thinking off, Qwen3's generation prompt ends in an empty think block that a non-final turn lacks, and
    // a tool-only turn starts with "<tool_call>", which shares "<t" with "<think>".
    const tokenizer = await qwen3();
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What is 2**10?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'python', arguments: { code: 'print(2**10)' } } }],
      },
      { role: 'tool', content: '1024' },
      { role: 'assistant', content: '1024' },
    ];
    const example = toSftExample({ messages, tools }, tokenizer, { variables: { enable_thinking: false } });
    expect(maskedText(example, (ids) => tokenizer.decode(ids))).toEqual([
      '<tool_call>\n{"name": "python", "arguments": {"code": "print(2**10)"}}\n</tool_call><|im_end|>',
      // The final turn's empty think block is part of the generation prompt here, as in a rollout.
      '1024<|im_end|>',
    ]);
    // "<tool_call>" stays one token (the first trained one) instead of being cut at the mask boundary.
    const toolCallId = tokenizer.encode('<tool_call>');
    expect(toolCallId).toHaveLength(1);
    expect(example.inputIds[example.lossMask.indexOf(1)]).toBe(toolCallId[0]);
  });

  it('names the message when a template rewrites earlier turns', () => {
    // A template that shows only the latest user message cannot have its assistant tokens located.
    const template = new ChatTemplate(
      "{%- for m in messages -%}{%- if m.role == 'assistant' or loop.last -%}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endif -%}{%- endfor -%}{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}",
    );
    const messages: ChatMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'd' },
    ];
    expect(() => toSftExample({ messages }, new ByteTokenizer(), { template })).toThrow(
      'field "messages[1]": the chat template renders the conversation before this assistant message differently',
    );
  });

  it('masks the embedded model text but not the inserted tool output', () => {
    const tokenizer = new ByteTokenizer();
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Q: 12*34=?' },
      { role: 'assistant', content: '```python\nprint(12*34)\n```\n' },
      { role: 'tool', content: '408' },
      { role: 'assistant', content: 'A: \\boxed{408}' },
    ];
    const example = toSftExample({ messages }, tokenizer);
    // As in a rollout with @taorl/sandbox's markdown format: the model writes "```output" and stops there.
    expect(maskedText(example, (ids) => tokenizer.decode(ids))).toEqual([
      '```python\nprint(12*34)\n```\n```output',
      'A: \\boxed{408}<|im_end|>',
    ]);
    expect(example.lossMask.length).toBe(example.inputIds.length);
  });
});
