/** A config error that names the source (file or `--set` override) and the dotted field path. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly field: string,
    /** The problem alone, without source and field. */
    readonly problem: string,
  ) {
    super(`${source}: ${field === '' ? '(root)' : field}: ${problem}`);
    this.name = 'ConfigError';
  }
}
