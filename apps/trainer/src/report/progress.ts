/** Where a progress bar draws: a TTY redraws one line in place; anything else gets a line now and then. */
export interface ProgressSink {
  write(text: string): void;
  readonly isTTY?: boolean;
}

export interface ProgressOptions {
  /** Shown before the bar, e.g. "rl". */
  label: string;
  total: number;
  sink?: ProgressSink;
  /** Milliseconds between printed lines when the sink is not a TTY. */
  logEveryMs?: number;
  now?: () => number;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '--:--';
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

/**
 * A progress bar with elapsed time and ETA. The ETA extrapolates the mean time per completed unit, which is what a
 * training loop with roughly constant step cost needs; `note` carries the latest metric (e.g. "reward 0.41").
 */
export class ProgressBar {
  private done = 0;
  private note = '';
  private lastLog = Number.NEGATIVE_INFINITY;
  private lastLine = '';
  private readonly started: number;
  private readonly sink: ProgressSink;
  private readonly now: () => number;
  private readonly logEveryMs: number;

  constructor(private readonly options: ProgressOptions) {
    this.sink = options.sink ?? process.stderr;
    this.now = options.now ?? Date.now;
    this.logEveryMs = options.logEveryMs ?? 10_000;
    this.started = this.now();
  }

  /** Marks `units` more as done and redraws. */
  tick(units = 1, note?: string): void {
    this.done = Math.min(this.options.total, this.done + units);
    if (note !== undefined) this.note = note;
    this.draw(false);
  }

  /** Prints the final state on its own line. */
  finish(note?: string): void {
    if (note !== undefined) this.note = note;
    this.draw(true);
  }

  /** The line as it would be drawn now (also used by tests). */
  render(): string {
    const { total, label } = this.options;
    const elapsed = this.now() - this.started;
    const fraction = total === 0 ? 1 : this.done / total;
    const width = 24;
    const filled = Math.round(fraction * width);
    const eta = this.done === 0 ? Number.NaN : (elapsed / this.done) * (total - this.done);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const counts = `${this.done}/${total}`;
    const times = `${formatDuration(elapsed)} elapsed, ETA ${formatDuration(eta)}`;
    return `${label} [${bar}] ${counts} ${times}${this.note === '' ? '' : ` | ${this.note}`}`;
  }

  private draw(final: boolean): void {
    if (this.sink.isTTY === true) {
      this.sink.write(`\r\x1b[2K${this.render()}${final ? '\n' : ''}`);
      return;
    }
    const now = this.now();
    const line = this.render();
    // The final state is printed once, even when the last tick already printed it.
    if ((final && line !== this.lastLine) || (!final && now - this.lastLog >= this.logEveryMs)) {
      this.lastLog = now;
      this.lastLine = line;
      this.sink.write(`${line}\n`);
    }
  }
}
