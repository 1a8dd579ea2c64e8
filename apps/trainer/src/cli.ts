#!/usr/bin/env node
import { runCli } from './cli/run-cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A failed command ends now: a plug-in module that did not finish loading may still hold timers that would
    // keep the process alive (stdout and stderr are written synchronously to files and pipes on Linux). After
    // what is already queued, so that a process ended by a signal (TiedChildren) exits with 128 + its number.
    if (code !== 0) setImmediate(() => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(
      `taorl: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
