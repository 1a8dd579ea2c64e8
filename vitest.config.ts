import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Sibling packages resolve to their TypeScript sources through the "@taorl/source" export condition, so
// tests need no prior build. Vite applies it to server-side (Node) resolution only via ssr.resolve.conditions.
// TAORL_RESOLVE=dist drops that condition so sibling packages load from their builds instead.
const fromDist = process.env.TAORL_RESOLVE === 'dist';
const sourceConditions = [...(fromDist ? [] : ['@taorl/source']), 'node', 'import', 'module', 'default'];

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
      { extends: true as const, test: { name: 'repository', include: ['test/**/*.test.ts'] } },
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
