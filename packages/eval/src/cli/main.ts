#!/usr/bin/env node
import { runCli } from './run';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`taorl-eval: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
