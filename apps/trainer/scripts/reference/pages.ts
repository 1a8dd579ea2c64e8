import { cliReference } from './cli-page.js';
import { configReference } from './config-page.js';

/** The generated reference pages, by path from the repository root, with what each covers. */
export function referencePages(): { path: string; text: string; covers: string }[] {
  const config = configReference();
  const cli = cliReference();
  return [
    { path: 'docs/reference/config.md', text: config.text, covers: `${config.fields} config fields` },
    { path: 'docs/reference/cli.md', text: cli.text, covers: `${cli.commands} commands, ${cli.flags} flags` },
  ];
}
