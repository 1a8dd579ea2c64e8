// Set-up file of `pnpm test:unit`: the tier holds tests that start no child process (and so no sandbox), so every
// child_process function throws here. A test that needs one belongs in test/integration-tests.ts.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(
        `test:unit runs no child processes, and this test calls child_process.${name}: add its file to test/integration-tests.ts`,
      );
    },
  });
}
// ES module imports of node:child_process see the replaced functions too.
syncBuiltinESMExports();
