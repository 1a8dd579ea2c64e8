import { afterAll, describe, expect, it } from 'vitest';
import { createGraderPool, grade } from '../src/index';

describe('createGraderPool', () => {
  const pool = createGraderPool({ size: 2, batchSize: 4 });
  afterAll(() => pool.close());

  it('grades a batch in worker threads with the same verdicts as grade(), in task order', async () => {
    const tasks = Array.from({ length: 23 }, (_, index) => ({
      response: `the answer is \\boxed{\\frac{${index}}{2}}`,
      gold: index % 3 === 0 ? String(index / 2) : '0.25',
    }));
    const results = await pool.gradeMany(tasks);
    expect(results).toEqual(tasks.map((task) => grade(task.response, task.gold)));
    expect(results.filter((result) => result.correct).length).toBe(8);
  });

  it('terminates a worker whose task overruns, grades that task as timeout, and carries on', async () => {
    // A 1 ms limit cannot be met by a worker still starting, so the first task of the batch times out.
    const strict = createGraderPool({ size: 1, taskTimeoutMs: 1 });
    const [first] = await strict.gradeMany([{ response: '\\boxed{1}', gold: '1' }]);
    await strict.close();
    expect(first).toEqual({ correct: false, extracted: '1', gold: '1', reason: 'timeout' });
    const [after] = await pool.gradeMany([{ response: '\\boxed{1}', gold: '1' }]);
    expect(after!.correct).toBe(true);
  });

  it('rejects work after close and validates its size', async () => {
    const closed = createGraderPool({ size: 1 });
    await closed.close();
    await expect(closed.gradeMany([{ response: '1', gold: '1' }])).rejects.toThrow(/closed/);
    expect(() => createGraderPool({ size: 0 })).toThrow(/size must be a positive integer/);
  });
});
