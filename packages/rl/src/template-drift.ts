import type { TemplateToolTurns, Tokenizer, Trajectory } from '@taorl/data';
import { checkTemplateIntegrity, describeDrift } from '@taorl/rollout';
import type { Problem } from './problem';

/** The template integrity check a remote-mode RL step runs on a sample of its trajectories. */
export interface TemplateDriftCheck {
  turns: TemplateToolTurns;
  /** Trajectories checked per rollout batch, spread evenly over it. */
  sampleSize: number;
  /** Where the first drift of a step is told, with its position and both token strings. */
  log(message: string): void;
}

/** What a step's checks found: trajectories checked and how many left the template's rendering. */
export interface TemplateDriftCount {
  checked: number;
  drifted: number;
}

/**
 * Checks an evenly spread sample of a rollout batch against the chat template (checkTemplateIntegrity) and adds to
 * `count`; logs the first drift it meets. Inference servers sample the trajectories, so this is where a server
 * that re-tokenizes or a template the tool turns do not match would show.
 */
export function checkTemplateDrift(
  check: TemplateDriftCheck,
  trajectories: readonly Trajectory[],
  problems: ReadonlyMap<string, Problem>,
  tokenizer: Tokenizer,
  count: TemplateDriftCount,
): void {
  const n = Math.min(check.sampleSize, trajectories.length);
  for (let k = 0; k < n; k++) {
    const trajectory = trajectories[Math.floor((k * trajectories.length) / n)]!;
    const messages = problems.get(trajectory.groupId)?.promptMessages;
    if (messages === undefined) continue;
    const drift = checkTemplateIntegrity(trajectory, messages, check.turns, tokenizer);
    count.checked++;
    if (drift === null) continue;
    if (count.drifted === 0) {
      check.log(`template drift in a trajectory of problem ${trajectory.groupId}: ${describeDrift(drift)}`);
    }
    count.drifted++;
  }
}
