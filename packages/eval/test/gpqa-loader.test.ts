import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkFormatError } from '../src/index';
import { loadGpqa } from '../src/node';

// Issue 45: a GPQA row that would give a wrong reward is refused at load, naming the file, the row and the field.
const scratch = mkdtempSync(join(tmpdir(), 'taorl-gpqa-'));
const good = {
  'Record ID': 'recOwn01',
  Question: 'Which gas makes up most of the air?',
  'Correct Answer': 'Nitrogen',
  'Incorrect Answer 1': 'Oxygen',
  'Incorrect Answer 2': 'Argon',
  'Incorrect Answer 3': 'Carbon dioxide',
};

function fileWith(name: string, second: Record<string, string>): string {
  const path = join(scratch, name);
  writeFileSync(
    path,
    `${JSON.stringify(good)}\n${JSON.stringify({ ...good, 'Record ID': 'recOwn02', ...second })}\n`,
  );
  return path;
}

describe('loadGpqa refuses rows that would give a wrong reward', () => {
  it('loads a row whose options all differ', async () => {
    const path = join(scratch, 'good.jsonl');
    writeFileSync(path, `${JSON.stringify(good)}\n`);
    expect((await loadGpqa(path))[0]!.options).toHaveLength(4);
  });

  it('refuses an empty correct answer or option', async () => {
    const emptyCorrect = fileWith('empty-correct.jsonl', { 'Correct Answer': '  ' });
    await expect(loadGpqa(emptyCorrect)).rejects.toThrow(
      `${emptyCorrect}:2: field "Correct Answer" is empty; every option needs its text`,
    );
    const emptyWrong = fileWith('empty-wrong.jsonl', { 'Incorrect Answer 2': '' });
    await expect(loadGpqa(emptyWrong)).rejects.toThrow(
      `${emptyWrong}:2: field "Incorrect Answer 2" is empty`,
    );
  });

  it('refuses two options that read the same, whatever their case, spacing or closing period', async () => {
    const same = fileWith('same.jsonl', { 'Incorrect Answer 3': 'Nitrogen' });
    await expect(loadGpqa(same)).rejects.toThrow(
      `${same}:2: field "Incorrect Answer 3" repeats "Correct Answer" ("Nitrogen")`,
    );
    const restyled = fileWith('restyled.jsonl', { 'Incorrect Answer 2': ' oxygen. ' });
    await expect(loadGpqa(restyled)).rejects.toThrow(
      `${restyled}:2: field "Incorrect Answer 2" repeats "Incorrect Answer 1"`,
    );
    await expect(loadGpqa(restyled)).rejects.toBeInstanceOf(BenchmarkFormatError);
  });
});
