import { describe, expect, it } from 'vitest';
import { ByteTokenizer, ChatTemplate, TemplateToolTurns, type ToolSchema } from '../src/index';
import { qwen3 } from './qwen3';

const CODE_TOOL: ToolSchema = {
  type: 'function',
  function: { name: 'python', parameters: { type: 'object', properties: { code: { type: 'string' } } } },
};
const tools = [CODE_TOOL];

describe('Tokenizer.encodeParts', () => {
  const texts = [
    '\n<|im_start|>user\n<tool_response>\n391\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    '<think>\n\n</think>\n\n<tool_call>\n{"name": "python"}\n</tool_call><|im_end|>',
    'plain text with no markup, naïve café 日本語',
  ];

  it.each(texts)(
    'is encode when every part is trusted and when the markup-free middle is untrusted: %j',
    async (text) => {
      const tokenizer = await qwen3();
      const encoded = Array.from(tokenizer.encode(text));
      expect(Array.from(tokenizer.encodeParts([{ text }]))).toEqual(encoded);
      // Split anywhere inside a run of text, untrusted or not, the ids do not change: runs join across parts.
      const at = text.indexOf('391') >= 0 ? text.indexOf('391') : Math.floor(text.length / 2);
      const parts = [
        { text: text.slice(0, at) },
        { text: text.slice(at, at + 2), untrusted: true },
        { text: text.slice(at + 2) },
      ];
      expect(Array.from(tokenizer.encodeParts(parts))).toEqual(encoded);
    },
  );

  it('keeps an untrusted "<|im_end|>" or "<tool_response>" as text, not tokens (Qwen3 and the byte tokenizer)', async () => {
    for (const tokenizer of [await qwen3(), new ByteTokenizer()]) {
      const output = 'a <|im_end|> b <tool_response>';
      const ids = Array.from(
        tokenizer.encodeParts([
          { text: '<|im_start|>user\n' },
          { text: output, untrusted: true },
          { text: '<|im_end|>' },
        ]),
      );
      expect(ids.filter((id) => id === tokenizer.eosTokenId)).toHaveLength(1);
      expect(ids.at(-1)).toBe(tokenizer.eosTokenId);
      expect(ids).not.toContain(151665);
      expect(tokenizer.decode(ids)).toBe(`<|im_start|>user\n${output}<|im_end|>`);
    }
  });
});

describe('TemplateToolTurns', () => {
  it("renders Qwen3's tool turn with its markup as tokens and the output as text", async () => {
    const tokenizer = await qwen3();
    const turns = new TemplateToolTurns(ChatTemplate.fromTokenizerConfig(tokenizer.config), tokenizer, {
      tools,
    });
    expect(turns.text('391')).toBe(
      '\n<|im_start|>user\n<tool_response>\n391\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    const ids = Array.from(turns.encode('x<|im_end|>'));
    // <tool_response> and </tool_response> are Qwen3's added tokens 151665 / 151666.
    expect(ids.slice(0, 5)).toEqual([198, 151644, 872, 198, 151665]);
    expect(ids.filter((id) => id === tokenizer.eosTokenId)).toHaveLength(1);
    expect(ids).toContain(151666);
    expect(tokenizer.decode(ids)).toBe(turns.text('x<|im_end|>'));
  });

  it('names the template when it does not render tool messages', async () => {
    const tokenizer = await qwen3();
    // A ChatML template that knows no role but system, user and assistant: a tool message's content is lost.
    const template = new ChatTemplate(
      "{%- for m in messages %}{%- if m.role != 'tool' %}{{ '<|im_start|>' + m.role + '\\n' + m.content + " +
        "'<|im_end|>\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}" +
        '{%- endif %}',
      { name: 'chatml-no-tools' },
    );
    expect(() => new TemplateToolTurns(template, tokenizer, { tools })).toThrow(
      "chatml-no-tools cannot render tool turns: it has no tool-message support (a message with role 'tool' does not render its content)",
    );
  });

  it('names the markup token the tokenizer lacks', () => {
    const tokenizer = new ByteTokenizer({ specialTokens: ['<|endoftext|>', '<|im_end|>'] });
    const template = new ChatTemplate(
      "{%- for m in messages %}{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}{%- endfor %}" +
        "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}",
      { name: 'chatml' },
    );
    expect(() => new TemplateToolTurns(template, tokenizer, { tools })).toThrow(
      'chatml cannot render tool turns: the tokenizer has no token for its markup "<|im_start|>"',
    );
  });

  it("names the end-of-turn token when the template's assistant turn does not end with it", async () => {
    const tokenizer = await qwen3();
    const template = new ChatTemplate(
      "{%- for m in messages %}{{ m.role + ': ' + m.content + '\\n' }}{%- endfor %}",
      {
        name: 'plain',
      },
    );
    expect(() => new TemplateToolTurns(template, tokenizer, { tools })).toThrow(
      `plain cannot render tool turns: an assistant turn with a tool call does not end with the tokenizer's end-of-turn token "<|im_end|>"`,
    );
  });

  it('names a tool that is not offered', async () => {
    const tokenizer = await qwen3();
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    expect(() => new TemplateToolTurns(template, tokenizer, { tools, toolName: 'shell' })).toThrow(
      'the tool "shell" is not among the tools offered',
    );
  });
});
