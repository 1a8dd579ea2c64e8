import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

// The pool's workers must not inherit flags that change how their script is read. A parent started as
// `node --input-type=module -e ...` (a one-liner, a shell script) once made every worker fail on `require`.
// This runs the built package (pnpm --filter @taorl/eval build) in a real child process started that way.
describe('createGraderPool under a parent started with node --input-type=module -e', () => {
  it('grades in its workers', async () => {
    expect(existsSync(`${packageDir}dist/node.js`), 'build @taorl/eval first (dist/node.js)').toBe(true);
    const script = [
      "import { createGraderPool } from '@taorl/eval/node';",
      'const pool = createGraderPool({ size: 2 });',
      "const results = await pool.gradeMany([{ response: 'so \\\\boxed{\\\\frac{1}{2}}', gold: '0.5' }, { response: '\\\\boxed{3}', gold: '4' }]);",
      'await pool.close();',
      'console.log(JSON.stringify(results.map((result) => result.correct)));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual([true, false]);
  });
});
