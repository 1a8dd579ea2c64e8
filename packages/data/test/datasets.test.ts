import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { DataError } from '../src/index';
import { loadDataset } from '../src/node';

// The benchmark files @taorl/eval carries, read here as real qa and verl datasets.
const BENCHMARKS = fileURLToPath(new URL('../../eval/data/benchmarks', import.meta.url));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'taorl-datasets-'));
}

describe('loadDataset: verl RL prompts', () => {
  it('reads the real deepscaler AIME24 parquet (nested prompt, reward_model, int64 extra_info)', async () => {
    const rows = await collect(loadDataset(join(BENCHMARKS, 'aime24/deepscaler_aime.parquet'), 'verl'));
    expect(rows).toHaveLength(30);
    const first = rows[0];
    expect(first?.dataSource).toBe('deepscaler');
    expect(first?.prompt[0]?.role).toBe('user');
    expect(first?.prompt[0]?.content).toContain('Aya');
    expect(first?.groundTruth).toBe('204');
    expect(first?.ability).toBe('math');
    expect(first?.extraInfo).toEqual({ index: 0, split: 'test' });
    // The same 30 answers as the Qwen2.5-Math JSONL of AIME24, in another order.
    const qa = await collect(loadDataset(join(BENCHMARKS, 'aime24/test.jsonl'), 'qa'));
    expect(rows.map((r) => Number(r.groundTruth)).sort()).toEqual(qa.map((r) => Number(r.answer)).sort());
  });

  it('names file, line and field of a bad JSONL record', async () => {
    const path = join(tempDir(), 'rl.jsonl');
    const good = {
      data_source: 'arith',
      prompt: [{ role: 'user', content: '1+1?' }],
      ability: 'math',
      reward_model: { ground_truth: '2', style: 'rule' },
      extra_info: { index: 0 },
    };
    const bad = { ...good, prompt: [{ role: 'robot', content: 'x' }] };
    writeFileSync(path, `${JSON.stringify(good)}\n${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
    await expect(collect(loadDataset(path, 'verl'))).rejects.toThrow(
      `${path}:3, field "prompt[0].role": is "robot"; expected one of system, user, assistant, tool`,
    );
    const missing = { ...good, reward_model: { style: 'rule' } };
    writeFileSync(path, `${JSON.stringify(missing)}\n`);
    await expect(collect(loadDataset(path, 'verl'))).rejects.toThrow(
      `${path}:1, field "reward_model.ground_truth": expected a string, got nothing`,
    );
  });
});

describe('loadDataset: plain question/answer', () => {
  it('reads numeric golds as text (AMC23 stores floats)', async () => {
    const rows = await collect(loadDataset(join(BENCHMARKS, 'amc23/test.jsonl'), 'qa'));
    expect(rows).toHaveLength(40);
    expect(rows[0]?.answer).toBe('27');
    expect(rows[0]?.question).toContain('Alicia');
  });

  it('ignores a UTF-8 byte-order mark and CRLF line ends', async () => {
    const path = join(tempDir(), 'bom.jsonl');
    writeFileSync(path, '\uFEFF{"question":"a","answer":"1"}\r\n{"question":"b","answer":2}\r\n');
    expect(await collect(loadDataset(path, 'qa'))).toEqual([
      { question: 'a', answer: '1' },
      { question: 'b', answer: '2' },
    ]);
  });

  it('reports a broken JSON line with its number, blank lines counted', async () => {
    const path = join(tempDir(), 'qa.jsonl');
    writeFileSync(path, '{"question":"a","answer":"1"}\n\n{"question":"b", answer:2}\n');
    const error = await collect(loadDataset(path, 'qa')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).location).toEqual({ file: path, line: 3 });
    expect((error as Error).message).toMatch(new RegExp(`^${path}:3: not valid JSON`));
  });

  it('reads parquet and names the row of a bad record', async () => {
    const path = join(tempDir(), 'qa.parquet');
    parquetWriteFile({
      filename: path,
      columnData: [
        { name: 'question', data: ['1+1?', '2+2?', null], type: 'STRING' },
        { name: 'answer', data: ['2', '4', '6'], type: 'STRING' },
      ],
    });
    const rows: unknown[] = [];
    const error = await (async () => {
      for await (const row of loadDataset(path, 'qa')) rows.push(row);
    })().catch((e: unknown) => e);
    expect(rows).toEqual([
      { question: '1+1?', answer: '2' },
      { question: '2+2?', answer: '4' },
    ]);
    expect((error as Error).message).toBe(`${path}, row 3, field "question": expected a string, got null`);
  });
});

describe('loadDataset: SFT messages + tools', () => {
  const record = {
    messages: [
      { role: 'user', content: 'What is 2**10?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { type: 'function', id: 'c1', function: { name: 'python', arguments: '{"code":"print(2**10)"}' } },
        ],
      },
      { role: 'tool', content: '1024', tool_call_id: 'c1' },
      { role: 'assistant', content: '\\boxed{1024}' },
    ],
    tools: [
      {
        type: 'function',
        function: { name: 'python', description: 'Run code', parameters: { type: 'object' } },
      },
    ],
  };
  const expected = {
    messages: [
      { role: 'user', content: 'What is 2**10?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { type: 'function', id: 'c1', function: { name: 'python', arguments: '{"code":"print(2**10)"}' } },
        ],
      },
      { role: 'tool', content: '1024', tool_call_id: 'c1' },
      { role: 'assistant', content: '\\boxed{1024}' },
    ],
    tools: record.tools,
  };

  it('reads JSONL with nested messages and tools', async () => {
    const path = join(tempDir(), 'sft.jsonl');
    writeFileSync(path, `${JSON.stringify(record)}\n`);
    expect(await collect(loadDataset(path, 'sft'))).toEqual([expected]);
  });

  it('reads parquet whose messages and tools are JSON strings', async () => {
    const path = join(tempDir(), 'sft.parquet');
    parquetWriteFile({
      filename: path,
      columnData: [
        { name: 'messages', data: [JSON.stringify(record.messages)], type: 'STRING' },
        { name: 'tools', data: [JSON.stringify(record.tools)], type: 'STRING' },
      ],
    });
    expect(await collect(loadDataset(path, 'sft'))).toEqual([expected]);
  });

  it('names the nested field of a bad tool call', async () => {
    const path = join(tempDir(), 'sft.jsonl');
    const bad = structuredClone(record);
    (bad.messages[1] as { tool_calls: Array<{ function: { arguments: unknown } }> })
      .tool_calls[0]!.function.arguments = 5;
    writeFileSync(path, `${JSON.stringify(bad)}\n`);
    await expect(collect(loadDataset(path, 'sft'))).rejects.toThrow(
      `${path}:1, field "messages[1].tool_calls[0].function.arguments": expected a JSON string or an object`,
    );
  });

  it('names a file that cannot be read', async () => {
    const missing = join(tempDir(), 'missing.jsonl');
    await expect(collect(loadDataset(missing, 'qa'))).rejects.toThrow(`${missing}: cannot read (ENOENT)`);
    const parquet = join(tempDir(), 'missing.parquet');
    await expect(collect(loadDataset(parquet, 'qa'))).rejects.toThrow(
      `${parquet}: cannot read as parquet (ENOENT`,
    );
  });

  it('rejects unknown file types and formats', async () => {
    await expect(collect(loadDataset('data.csv', 'sft'))).rejects.toThrow('unknown dataset file type ".csv"');
    await expect(collect(loadDataset('data.jsonl', 'alpaca' as 'sft'))).rejects.toThrow(
      'unknown dataset format "alpaca"; expected one of verl, sft, qa',
    );
  });
});

describe('record errors', () => {
  it('names a nested object field without a trailing dot, and the record itself when it is not an object', async () => {
    const path = join(tempDir(), 'rl.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ data_source: 'x', prompt: [{ role: 'user', content: 'q' }], reward_model: 'no' })}\n`,
    );
    await expect(collect(loadDataset(path, 'verl'))).rejects.toThrow(
      `${path}:1, field "reward_model": expected an object, got string "no"`,
    );
    writeFileSync(path, '[1, 2]\n');
    await expect(collect(loadDataset(path, 'verl'))).rejects.toThrow(
      `${path}:1: expected an object, got an array`,
    );
  });
});
