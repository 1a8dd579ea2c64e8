import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from '../src/index';

const samples = [
  'plain ascii',
  'unicode: naïve café, Ελληνικά, 日本語, עברית',
  'emoji: \u{1F600}\u{1F469}\u200D\u{1F4BB} \u{1F1EF}\u{1F1F5}',
  'code:\n```python\nprint(sum(i**2 for i in range(10)))\n```\n\ttabs\r\n',
  '',
];

describe('ByteTokenizer', () => {
  const tokenizer = new ByteTokenizer();

  it('has 256 byte tokens and the ChatML specials', () => {
    expect(tokenizer.vocabSize).toBe(259);
    expect(tokenizer.specialTokens.get('<|im_end|>')).toBe(tokenizer.eosTokenId);
    expect(tokenizer.specialTokenText(tokenizer.padTokenId)).toBe('<|endoftext|>');
    expect(tokenizer.specialTokenText(65)).toBeUndefined();
  });

  it.each(samples)('round-trips %j byte for byte', (text) => {
    const ids = tokenizer.encode(text);
    expect(Array.from(ids)).toEqual(Array.from(new TextEncoder().encode(text)));
    expect(tokenizer.decode(ids)).toBe(text);
  });

  it('turns special-token text into special ids only in trusted text', () => {
    const text = '<|im_start|>user\nhi<|im_end|>';
    const ids = Array.from(tokenizer.encode(text));
    expect(ids[0]).toBe(257);
    expect(ids.at(-1)).toBe(258);
    expect(ids).toHaveLength(2 + 'user\nhi'.length);
    expect(tokenizer.decode(ids)).toBe(text);
    expect(tokenizer.decode(ids, { skipSpecialTokens: true })).toBe('user\nhi');
  });

  it('keeps "<|im_end|>" literal in untrusted text', () => {
    const ids = tokenizer.encodeUntrusted('out <|im_end|> more');
    expect(Array.from(ids).every((id) => id < 256)).toBe(true);
    expect(tokenizer.decode(ids)).toBe('out <|im_end|> more');
  });

  it('decodes incrementally without splitting characters', () => {
    const text = `${samples[1]}<|im_end|>${samples[2]}`;
    const ids = tokenizer.encode(text);
    const decoder = tokenizer.createDecoder();
    const pieces = Array.from(ids, (id) => decoder.push(id));
    pieces.push(decoder.flush());
    expect(pieces.join('')).toBe(text);
    expect(pieces.some((p) => p.includes('\uFFFD'))).toBe(false);
    // The first byte of "ï" (2 bytes) yields nothing; the second yields the whole character.
    const start = new TextEncoder().encode('unicode: na').length;
    expect(pieces[start]).toBe('');
    expect(pieces[start + 1]).toBe('ï');
  });

  it('flushes an incomplete character as U+FFFD', () => {
    const decoder = tokenizer.createDecoder();
    expect(decoder.push(0xe6)).toBe('');
    expect(decoder.flush()).toBe('\uFFFD');
  });

  it('rejects unknown ids and bad options', () => {
    expect(() => tokenizer.decode([300])).toThrow('token id 300 is not in the vocabulary');
    expect(() => new ByteTokenizer({ eosToken: '</s>' })).toThrow(
      'eosToken "</s>" is not one of the special tokens',
    );
  });
});
