export { type CliCommand, type CliIO, commands, runCli, usage } from './cli/run-cli.js';
