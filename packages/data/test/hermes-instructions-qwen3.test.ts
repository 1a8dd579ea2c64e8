import { hermesFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import { ChatTemplate } from '../src/index';
import { qwen3 } from './qwen3';

// The trainer's tool.instructions auto puts @taorl/sandbox's hermes instructions in a system message; a Qwen3
// model reads them through its own chat template and tokenizer, as here.
describe("hermes instructions through Qwen3's real chat template and tokenizer", () => {
  it('render as a plain system turn, with the tags as the special tokens the model itself emits', async () => {
    const tokenizer = await qwen3();
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const instructions = hermesFormat.instructions ?? '';
    const text = template.render(
      [
        { role: 'system', content: instructions },
        { role: 'user', content: 'Q: 9+1=?' },
      ],
      { addGenerationPrompt: true },
    );
    expect(text).toBe(
      `<|im_start|>system\n${instructions}<|im_end|>\n<|im_start|>user\nQ: 9+1=?<|im_end|>\n<|im_start|>assistant\n`,
    );
    const ids = [...tokenizer.encode(text)];
    expect(tokenizer.decode(Int32Array.from(ids))).toBe(text);
    for (const tag of ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>']) {
      const tagIds = [...tokenizer.encode(tag)];
      expect(tagIds, tag).toHaveLength(1);
      // Each tag twice as its single token: once where the prose names it, once in the example.
      expect(ids.filter((id) => id === tagIds[0]).length, tag).toBe(2);
    }
  });
});
