import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { integrationTests } from './test/integration-tests';

// Sibling packages resolve to their TypeScript sources through the "@taorl/source" export condition, so
// tests need no prior build. Vite applies it to server-side (Node) resolution only via ssr.resolve.conditions.
// TAORL_RESOLVE=dist drops that condition so sibling packages load from their builds instead.
const fromDist = process.env.TAORL_RESOLVE === 'dist';
// TAORL_TIER=unit (pnpm test:unit) leaves out the tests that need a sandbox, a trainer run or a child process.
const unitTier = process.env.TAORL_TIER === 'unit';
const unitTierGuard = fileURLToPath(new URL('./test/support/unit-tier-guard.ts', import.meta.url));
const sourceConditions = [...(fromDist ? [] : ['@taorl/source']), 'node', 'import', 'module', 'default'];

const docExamples = 'test/doc-examples.test.ts';

const workspaceDirs = ['packages', 'apps'].flatMap((group) =>
  readdirSync(group, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`),
);

export default defineConfig({
  ssr: { resolve: { conditions: sourceConditions } },
  resolve: { conditions: sourceConditions },
  test: {
    // One project per workspace package, so the report names the package of every test.
    // Plus the repository's own checks (test/ at the root).
    projects: [
      ...workspaceDirs.map((dir) => ({
        extends: true as const,
        test: { name: dir.split('/')[1], include: [`${dir}/test/**/*.test.ts`] },
      })),
      {
        extends: true as const,
        test: {
          name: 'repository',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, docExamples],
        },
      },
      // The docs' runnable blocks run against the builds, so only in the tier that has them (pnpm test:dist).
      ...(fromDist ? [{ extends: true as const, test: { name: 'docs', include: [docExamples] } }] : []),
    ],
    ...(unitTier
      ? { exclude: [...configDefaults.exclude, ...integrationTests], setupFiles: [unitTierGuard] }
      : {}),
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
