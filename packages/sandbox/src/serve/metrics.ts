import { EXEC_STATUSES, type ExecStatus } from '../types';

/** Latencies kept for the quantiles: the most recent ones, so the numbers follow the current load. */
const LATENCY_WINDOW = 4096;
const QUANTILES = [0.5, 0.9, 0.95, 0.99];

/** The nearest-rank quantile of sorted values (0 when empty). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** What the server counts; read as Prometheus text at GET /metrics. */
export class ServerMetrics {
  private readonly responses = new Map<number, number>();
  private readonly runs = new Map<ExecStatus, number>(EXEC_STATUSES.map((status) => [status, 0]));
  private readonly latencies: number[] = [];
  private nextLatency = 0;
  private latencySum = 0;
  private latencyCount = 0;
  private dropped = 0;
  private acceptErrors = 0;

  /** One answered HTTP request, any route. */
  response(statusCode: number): void {
    this.responses.set(statusCode, (this.responses.get(statusCode) ?? 0) + 1);
  }

  /** A connection closed as it arrived, the server holding its most. */
  connectionDropped(): void {
    this.dropped++;
  }

  /** A connection the server could not accept (out of file descriptors, say). */
  acceptFailed(): void {
    this.acceptErrors++;
  }

  /** One run answered by /run_code, with the time from the request's arrival to its answer. */
  run(status: ExecStatus, latencyMs: number): void {
    this.runs.set(status, (this.runs.get(status) ?? 0) + 1);
    if (this.latencies.length < LATENCY_WINDOW) this.latencies.push(latencyMs);
    else this.latencies[this.nextLatency] = latencyMs;
    this.nextLatency = (this.nextLatency + 1) % LATENCY_WINDOW;
    this.latencySum += latencyMs;
    this.latencyCount++;
  }

  /** The Prometheus text exposition of every counter, plus the gauges the server passes in. */
  text(gauges: {
    queued: number;
    running: number;
    concurrency: number;
    queuedBytes: number;
    maxQueueBytes: number;
    connections: number;
    maxConnections: number;
    residentBytes: number;
  }): string {
    const lines: string[] = [
      '# HELP taorl_sandbox_http_responses_total HTTP responses by status code, all routes.',
      '# TYPE taorl_sandbox_http_responses_total counter',
      ...[...this.responses]
        .sort(([a], [b]) => a - b)
        .map(([code, count]) => `taorl_sandbox_http_responses_total{code="${code}"} ${count}`),
      '# HELP taorl_sandbox_runs_total Runs answered by /run_code, by @taorl/sandbox status.',
      '# TYPE taorl_sandbox_runs_total counter',
      ...[...this.runs].map(([status, count]) => `taorl_sandbox_runs_total{status="${status}"} ${count}`),
      '# HELP taorl_sandbox_queue_length Requests waiting for a worker.',
      '# TYPE taorl_sandbox_queue_length gauge',
      `taorl_sandbox_queue_length ${gauges.queued}`,
      '# HELP taorl_sandbox_queue_bytes Memory charged to requests not yet running (bodies arriving or waiting).',
      '# TYPE taorl_sandbox_queue_bytes gauge',
      `taorl_sandbox_queue_bytes ${gauges.queuedBytes}`,
      '# HELP taorl_sandbox_queue_capacity_bytes The queue memory past which new requests are refused with 504.',
      '# TYPE taorl_sandbox_queue_capacity_bytes gauge',
      `taorl_sandbox_queue_capacity_bytes ${gauges.maxQueueBytes}`,
      '# HELP taorl_sandbox_connections Connections open now.',
      '# TYPE taorl_sandbox_connections gauge',
      `taorl_sandbox_connections ${gauges.connections}`,
      '# HELP taorl_sandbox_connections_capacity Connections held at most; more are closed as they arrive.',
      '# TYPE taorl_sandbox_connections_capacity gauge',
      `taorl_sandbox_connections_capacity ${gauges.maxConnections}`,
      '# HELP taorl_sandbox_connections_dropped_total Connections closed as they arrived, at the cap.',
      '# TYPE taorl_sandbox_connections_dropped_total counter',
      `taorl_sandbox_connections_dropped_total ${this.dropped}`,
      '# HELP taorl_sandbox_accept_errors_total Connections that could not be accepted (descriptors ran out).',
      '# TYPE taorl_sandbox_accept_errors_total counter',
      `taorl_sandbox_accept_errors_total ${this.acceptErrors}`,
      '# HELP taorl_sandbox_running Runs in the sandbox now.',
      '# TYPE taorl_sandbox_running gauge',
      `taorl_sandbox_running ${gauges.running}`,
      '# HELP taorl_sandbox_concurrency Runs the server hands the sandbox at once.',
      '# TYPE taorl_sandbox_concurrency gauge',
      `taorl_sandbox_concurrency ${gauges.concurrency}`,
      '# HELP taorl_sandbox_server_resident_bytes Resident memory of the server process (its workers not included).',
      '# TYPE taorl_sandbox_server_resident_bytes gauge',
      `taorl_sandbox_server_resident_bytes ${gauges.residentBytes}`,
      `# HELP taorl_sandbox_run_latency_seconds /run_code from arrival to answer; quantiles over the last ${LATENCY_WINDOW} runs.`,
      '# TYPE taorl_sandbox_run_latency_seconds summary',
    ];
    const sorted = [...this.latencies].sort((a, b) => a - b);
    for (const q of QUANTILES) {
      lines.push(`taorl_sandbox_run_latency_seconds{quantile="${q}"} ${quantile(sorted, q) / 1000}`);
    }
    lines.push(`taorl_sandbox_run_latency_seconds_sum ${this.latencySum / 1000}`);
    lines.push(`taorl_sandbox_run_latency_seconds_count ${this.latencyCount}`);
    return `${lines.join('\n')}\n`;
  }
}
