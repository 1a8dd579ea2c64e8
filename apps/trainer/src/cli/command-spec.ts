import { existsSync, statSync } from 'node:fs';
import { ConfigError } from '../config/config-error.js';
import { blameOverride } from '../config/load-config.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { openSession, type Session } from '../session/session.js';
import { lockFolder } from '../util/folder-lock.js';
import { presetPath } from '../util/shipped.js';
import type { CliCommand, CliIO, FlagSpec } from './cli-command.js';
import { commandUsage, parseCommand } from './command-args.js';

/** A trainer command: its flags, its default preset, and what it does with an open session. */
export interface CommandSpec {
  name: string;
  summary: string;
  flags: Record<string, FlagSpec>;
  /** The preset used when --config is omitted. */
  preset?: string;
  /** Checks the command's flags (and what they mean for its config and outDir) before the session opens. */
  checkFlags?(
    flags: Record<string, string | boolean | undefined>,
    config: TrainerConfig,
    source: string,
  ): void;
  /** Whether the session loads the local policy's weights (default true). */
  localPolicy?(flags: Record<string, string | boolean | undefined>): boolean;
  run(session: Session, flags: Record<string, string | boolean | undefined>, io: CliIO): Promise<void>;
}

export const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

export function integerFlag(
  flags: Record<string, string | boolean | undefined>,
  name: string,
  fallback: number,
): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`--${name}`, name, `expected a positive integer, got ${String(raw)}`);
  return value;
}

/** An outDir that exists but is not a folder fails here, before anything starts, not at the first write. */
function checkOutDir(config: TrainerConfig, source: string): void {
  if (existsSync(config.outDir) && !statSync(config.outDir).isDirectory())
    throw new ConfigError(source, 'outDir', `${config.outDir} exists and is not a folder`);
}

/**
 * Wraps a spec as a CLI command: flags and config parsed, outDir locked (a second command writing the same folder
 * is refused, naming the holder), session opened; both always closed.
 */
export function define(spec: CommandSpec): CliCommand {
  const command: Omit<CliCommand, 'run'> = {
    summary: spec.summary,
    flags: spec.flags,
    configFlags: true,
    ...(spec.preset === undefined ? {} : { preset: spec.preset }),
  };
  return {
    ...command,
    async run(args, io) {
      const parsed = await parseCommand(
        args,
        spec.flags,
        spec.preset === undefined ? undefined : presetPath(spec.preset),
      );
      if (parsed.help) {
        io.out(commandUsage(spec.name, command));
        return 0;
      }
      // A plug-in name or option a --set gave, refused when the run is assembled, is named by that --set.
      const blamed = (error: unknown) => blameOverride(error, parsed.source, parsed.overrides);
      try {
        checkOutDir(parsed.config, parsed.source);
      } catch (error) {
        throw blamed(error);
      }
      // The lock comes first and the flags are checked under it: a folder in use is always named as such, with its
      // holder, whatever the run holding it has written so far (a flag mistake leaves no trace: the lock is
      // released and a folder it created removed).
      const lock = lockFolder(parsed.config.outDir, `taorl ${spec.name}`, (notice) =>
        io.err(`warning: ${notice}\n`),
      );
      try {
        let session: Session;
        try {
          spec.checkFlags?.(parsed.flags, parsed.config, parsed.source);
          session = await openSession(parsed.config, parsed.source, {
            localPolicy: spec.localPolicy?.(parsed.flags) ?? true,
          });
        } catch (error) {
          throw blamed(error);
        }
        try {
          await spec.run(session, parsed.flags, io);
        } finally {
          await session.close();
        }
      } finally {
        lock.release();
      }
      return 0;
    },
  };
}
