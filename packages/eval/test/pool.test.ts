import { afterAll, describe, expect, it } from 'vitest';
import { grade } from '../src/index';
import { createGraderPool } from '../src/node';

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
    // With the in-thread guards lifted, matching two 20,000-item answer lists pairwise takes minutes; the pool's
    // hard limit must cut it off, and the worker that replaces the terminated one grades the next task.
    const items = Array.from({ length: 20_000 }, (_, index) => `x_{${index}}`);
    const slow = {
      response: `\\boxed{${items.join(',')}}`,
      gold: [...items].reverse().join(',').replace('x_{19999}', 'y'),
      options: { limits: { maxAnswerLength: 1_000_000, timeBudgetMs: 600_000 } },
    };
    const strict = createGraderPool({ size: 1, taskTimeoutMs: 500 });
    const [timedOut, next] = await strict.gradeMany([slow, { response: '\\boxed{1}', gold: '1' }]);
    await strict.close();
    expect(timedOut).toMatchObject({ correct: false, reason: 'timeout' });
    expect(timedOut!.extracted).toBeNull();
    expect(next).toEqual({ correct: true, extracted: '1', gold: '1', reason: 'equivalent' });
  });

  it('rejects work after close and validates its size', async () => {
    const closed = createGraderPool({ size: 1 });
    await closed.close();
    await expect(closed.gradeMany([{ response: '1', gold: '1' }])).rejects.toThrow(/closed/);
    expect(() => createGraderPool({ size: 0 })).toThrow(/size must be a positive integer/);
    expect(() => createGraderPool({ size: 1, batchSize: 0 })).toThrow(/batchSize must be a positive integer/);
    expect(() => createGraderPool({ size: 1, taskTimeoutMs: 0 })).toThrow(/taskTimeoutMs must be > 0/);
  });
});
