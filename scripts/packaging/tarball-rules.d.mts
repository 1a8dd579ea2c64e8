// Types of what TypeScript tests import from tarball-rules.mjs.

/** The `js` code block under a README's `## Example` heading, or null when there is none. */
export function readmeExample(readme: string): string | null;
