import { describe, expect, it } from 'vitest';
import {
  type ExecResult,
  getToolFormat,
  hermesFormat,
  keepEnd,
  markdownFormat,
  observationText,
  registerToolFormat,
  type ToolFormat,
  tagsFormat,
  toolFormatNames,
  truncateMiddle,
} from '../src/index';

function result(overrides: Partial<ExecResult>): ExecResult {
  return {
    status: 'ok',
    exitCode: 0,
    signal: null,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 1,
    ...overrides,
  };
}

const traceback = [
  'Traceback (most recent call last):',
  '  File "<cell>", line 3, in <module>',
  '    f(0)',
  '  File "<cell>", line 2, in f',
  '    return 1 / x',
  'ZeroDivisionError: division by zero',
].join('\n');

describe('truncation', () => {
  const text = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

  it('truncateMiddle keeps head and tail within the budget and counts what it cut', () => {
    const cut = truncateMiddle(text, 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    const match = /^([\s\S]*)\n\.\.\.\[(\d+) characters truncated\]\.\.\.\n([\s\S]*)$/.exec(cut);
    expect(match).not.toBeNull();
    const [, head = '', count = '', tail = ''] = match ?? [];
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(head.length + tail.length + Number(count)).toBe(text.length);
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
  });

  it('truncateMiddle and observationText stay within budget for random texts and budgets', () => {
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const randomText = (length: number) =>
      Array.from({ length }, () =>
        random() < 0.1 ? '\n' : String.fromCharCode(32 + Math.floor(random() * 90)),
      ).join('');
    for (let trial = 0; trial < 300; trial++) {
      const text = randomText(Math.floor(random() * 3000));
      const budget = 1 + Math.floor(random() * 800);
      const cut = truncateMiddle(text, budget);
      expect(cut.length).toBeLessThanOrEqual(budget);
      const marker = /\n\.\.\.\[(\d+) characters truncated\]\.\.\.\n/.exec(cut);
      if (text.length <= budget) expect(cut).toBe(text);
      else if (marker === null) {
        // Only a budget too small for the marker cuts without one, keeping the head.
        expect(budget).toBeLessThan(40);
        expect(text.startsWith(cut)).toBe(true);
      } else {
        const head = cut.slice(0, marker.index);
        const tail = cut.slice(marker.index + marker[0].length);
        expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
        expect(head.length + tail.length + Number(marker[1])).toBe(text.length);
      }
      const failed = result({
        status: 'error',
        exitCode: 1,
        stdout: text,
        stderr: `${randomText(400)}\nValueError: bad`,
      });
      const observation = observationText(failed, budget);
      expect(observation.length).toBeLessThanOrEqual(budget);
      if (budget >= 120) expect(observation.endsWith('ValueError: bad')).toBe(true);
    }
  });

  it('truncateMiddle leaves short text alone', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
  });

  it('keepEnd keeps the end', () => {
    const cut = keepEnd(text, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    const count = Number(/\[(\d+) characters truncated\]/.exec(cut)?.[1]);
    const kept = cut.slice(cut.indexOf('\n') + 1);
    expect(text.endsWith(kept)).toBe(true);
    expect(kept.length + count).toBe(text.length);
  });
});

describe('observationText', () => {
  it('shows stdout of a successful run, and its warnings', () => {
    expect(observationText(result({ stdout: '42\n' }), 512)).toBe('42\n');
    expect(observationText(result({ stdout: '1\n', stderr: 'RuntimeWarning: x\n' }), 512)).toBe(
      '1\nRuntimeWarning: x\n',
    );
    expect(observationText(result({ stdout: 'no newline', stderr: 'warning\n' }), 512)).toBe(
      'no newline\nwarning\n',
    );
  });

  it('on error keeps the end of the traceback even when stdout is long', () => {
    const stdout = 'line\n'.repeat(400);
    const text = observationText(result({ status: 'error', exitCode: 1, stdout, stderr: traceback }), 300);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text.endsWith('ZeroDivisionError: division by zero')).toBe(true);
    expect(text.startsWith('line\n')).toBe(true);
    expect(text).toContain('characters truncated');
  });

  it('names the limit that stopped the code', () => {
    expect(observationText(result({ status: 'timeout', exitCode: null, signal: 'SIGKILL' }), 512)).toMatch(
      /^TimeoutError/,
    );
    expect(observationText(result({ status: 'memory', exitCode: 1, stderr: 'MemoryError' }), 512)).toMatch(
      /MemoryError\nMemoryError: the execution exceeded its memory limit/,
    );
    expect(observationText(result({ status: 'killed', signal: 'SIGSEGV', exitCode: null }), 512)).toContain(
      'SIGSEGV',
    );
    expect(observationText(result({ status: 'sandbox_error', exitCode: null }), 512)).toMatch(
      /not an error in the code/,
    );
  });
});

describe('markdown format', () => {
  it('parses the last complete python block, not output blocks', () => {
    const text = [
      'First:\n```python\nprint(1)\n```\n```output\n1\n```\n',
      'Then:\n```py\nx = 2\nprint(x)\n```\n```output',
    ].join('');
    const call = markdownFormat.parse(text);
    expect(call?.code).toBe('x = 2\nprint(x)');
    expect(text.slice(call?.start, call?.end)).toBe('```py\nx = 2\nprint(x)\n```');
    expect(markdownFormat.parse('no code here ```python\nunfinished')).toBeNull();
    expect(markdownFormat.parse('```output\n```\n```\nprint(3)\n```')?.code).toBe('print(3)');
  });

  it('stops at ```output and renders the output block', () => {
    expect(markdownFormat.stopStrings).toEqual(['```output']);
    expect(markdownFormat.render(result({ stdout: '2\n' }))).toBe('\n2\n```\n');
  });
});

describe('hermes format', () => {
  it('parses a code_interpreter call, with arguments as an object or a JSON string', () => {
    const object =
      '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(\\"hi\\")"}}\n</tool_call>';
    expect(hermesFormat.parse(`Let me run it.\n${object}`)?.code).toBe('print("hi")');
    const asString = `<tool_call>${JSON.stringify({ name: 'code_interpreter', arguments: JSON.stringify({ code: 'x=1' }) })}</tool_call>`;
    expect(hermesFormat.parse(asString)?.code).toBe('x=1');
  });

  it('ignores other tools and malformed JSON, returning the last valid call', () => {
    const good = '<tool_call>{"name": "code_interpreter", "arguments": {"code": "a"}}</tool_call>';
    const other = '<tool_call>{"name": "search", "arguments": {"query": "b"}}</tool_call>';
    const broken = '<tool_call>{"name": "code_interpreter", "arguments": {"code": </tool_call>';
    expect(hermesFormat.parse(`${good}${other}${broken}`)?.code).toBe('a');
    expect(hermesFormat.parse(other)).toBeNull();
  });

  it('renders a tool_response', () => {
    expect(hermesFormat.stopStrings).toEqual(['</tool_call>']);
    expect(hermesFormat.render(result({ stdout: 'ok\n' }))).toBe('\n<tool_response>\nok\n</tool_response>\n');
  });
});

describe('tags format', () => {
  it('parses <code> blocks, with or without an inner fence', () => {
    expect(tagsFormat.parse('<code>\nprint(1)\n</code>')?.code).toBe('print(1)');
    expect(tagsFormat.parse('<code>1</code> then <code>\n```python\nprint(2)\n```\n</code>')?.code).toBe(
      'print(2)',
    );
    expect(tagsFormat.parse('<code>open only')).toBeNull();
  });

  it('renders an interpreter block with the traceback end on error', () => {
    const text = tagsFormat.render(result({ status: 'error', exitCode: 1, stderr: traceback }), {
      maxChars: 100,
    });
    expect(text).toContain('characters truncated');
    expect(text.startsWith('\n<interpreter>\n')).toBe(true);
    expect(text.endsWith('ZeroDivisionError: division by zero\n</interpreter>\n')).toBe(true);
  });
});

describe('instructions', () => {
  it.each([
    { format: markdownFormat, marks: ['```python', '```output'] },
    { format: hermesFormat, marks: ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'] },
    { format: tagsFormat, marks: ['<code>', '</code>', '<interpreter>', '</interpreter>'] },
  ])(
    '$format.name: names the call syntax the format parses, its stop string and the output wrapper',
    ({ format, marks }) => {
      const instructions = format.instructions ?? '';
      for (const mark of [...marks, ...format.stopStrings]) expect(instructions).toContain(mark);
      // The wrapper the observation really comes in is the one named (markdown's model opens the block itself).
      const observation = format.render(result({ stdout: '42\n' }));
      const wrapper = marks.filter((mark) => observation.includes(mark));
      expect(wrapper).toEqual(format === markdownFormat ? [] : marks.slice(2));
    },
  );

  it('hermes: the example call parses with the format, and the output shown is what the format renders', () => {
    const instructions = hermesFormat.instructions ?? '';
    const call = hermesFormat.parse(instructions);
    expect(call?.code).toBe('print(6 * 7)');
    const observation = hermesFormat.render(result({ stdout: '42\n' })).replace(/\n$/, '');
    expect(instructions.slice(call?.end)).toBe(observation);
  });

  it('hermes: the signature inside <tools></tools> is the code_interpreter function its parse accepts', () => {
    const signature = /<tools>\n(.*)\n<\/tools>/.exec(hermesFormat.instructions ?? '')?.[1] ?? '';
    const tool = JSON.parse(signature) as { function: { name: string; parameters: { required: string[] } } };
    expect(tool.function.name).toBe('code_interpreter');
    expect(tool.function.parameters.required).toEqual(['code']);
  });

  it('a format of your own may leave them out, and must give a text when it has them', () => {
    const plain: ToolFormat = { ...tagsFormat, name: 'tags-without-instructions', instructions: undefined };
    registerToolFormat(plain);
    expect(getToolFormat('tags-without-instructions').instructions).toBeUndefined();
    expect(() => registerToolFormat({ ...tagsFormat, name: 'tags-blank', instructions: ' ' })).toThrow(
      'registerToolFormat: format "tags-blank": instructions must be a non-empty string when given, got " "',
    );
  });
});

describe('registry', () => {
  it('holds the three built-in formats by name', () => {
    expect(toolFormatNames()).toEqual(expect.arrayContaining(['markdown', 'hermes', 'tags']));
    expect(getToolFormat('hermes')).toBe(hermesFormat);
  });

  it('names the registered formats for an unknown one', () => {
    expect(() => getToolFormat('xml')).toThrow(
      'unknown tool format "xml"; registered: hermes, markdown, tags',
    );
    expect(() => getToolFormat('hermess')).toThrow('unknown tool format "hermess" (did you mean "hermes"?)');
    expect(() => getToolFormat('hermes', { strict: true })).toThrow(
      'tool format "hermes": takes no options, got \'strict\'',
    );
  });

  it('accepts a user format and rejects an incomplete one', () => {
    const bang: ToolFormat = {
      name: 'bang',
      stopStrings: ['!!'],
      parse: (text) => {
        const at = text.lastIndexOf('!run ');
        return at < 0 ? null : { code: text.slice(at + 5).replace(/!!$/, ''), start: at, end: text.length };
      },
      render: (r) => `=> ${r.stdout}`,
    };
    registerToolFormat(bang);
    expect(getToolFormat('bang').parse('!run print(3)!!')?.code).toBe('print(3)');
    // Replacing a format, a built-in one too, takes { replace: true }.
    expect(() => registerToolFormat({ ...bang, name: 'markdown' })).toThrow(
      'tool format "markdown" is already registered; pass { replace: true } to replace it',
    );
    const loudBang = { ...bang, render: (r: ExecResult) => `=> ${r.stdout.toUpperCase()}` };
    registerToolFormat(loudBang, { replace: true });
    expect(getToolFormat('bang')).toBe(loudBang);
    expect(() => registerToolFormat({ name: 'half' } as unknown as ToolFormat)).toThrow(
      /stopStrings, parse and render/,
    );
  });
});

describe('ToolFormat.content (the output a chat template wraps itself)', () => {
  const outputs = [result({ stdout: '391\n' }), result({ stdout: '' }), result({ stdout: '\n\n  x\n   \n' })];

  it.each([hermesFormat, markdownFormat, tagsFormat])('$name: is what its own render wraps', (format) => {
    for (const output of outputs) {
      const content = format.content!(output, { maxChars: 64 });
      expect(content).toBe(observationText(output, 64).replace(/\n$/, ''));
      expect(format.render(output, { maxChars: 64 })).toContain(`\n${content}\n`);
    }
  });

  it('must be a function when a registered format gives one', () => {
    expect(() =>
      registerToolFormat({ ...tagsFormat, name: 'tags-content', content: 'x' } as unknown as ToolFormat),
    ).toThrow('registerToolFormat: format "tags-content": content must be a function when given');
  });
});
