import { describe, expect, it } from 'vitest';
import { LineReader } from '../src/local/line-reader';

describe('LineReader (the worker reply framing)', () => {
  it('gives whole lines in order, however the bytes are split, UTF-8 split mid-character included', () => {
    const text = '{"a":"é€"}\n{"b":2}\n\n{"c":"🙂"}\n{"partial"';
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 5, 7, bytes.length]) {
      const reader = new LineReader();
      const lines: string[] = [];
      for (let start = 0; start < bytes.length; start += size) {
        reader.push(bytes.subarray(start, start + size));
        for (let line = reader.take(); line !== undefined; line = reader.take()) lines.push(line);
      }
      expect(lines).toEqual(['{"a":"é€"}', '{"b":2}', '', '{"c":"🙂"}']);
    }
  });

  it('keeps a line that is not finished until its newline arrives', () => {
    const reader = new LineReader();
    reader.push(Buffer.from('abc'));
    expect(reader.take()).toBeUndefined();
    reader.push(Buffer.from('def\nghi'));
    expect(reader.take()).toBe('abcdef');
    expect(reader.take()).toBeUndefined();
    reader.push(Buffer.from('\n'));
    expect(reader.take()).toBe('ghi');
  });
});
