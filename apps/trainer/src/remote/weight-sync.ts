import { readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Policy } from '@taorl/model';

/** A server that answered a weight reload with a failure, or with something that leaves its weights unknown. */
export class WeightReloadError extends Error {
  override name = 'WeightReloadError';

  /** `url` is the server's base URL. */
  constructor(
    readonly url: string,
    readonly detail: string,
  ) {
    super(`${url}: weight reload failed: ${detail}`);
  }
}

/** What one server did with a reload request. */
export type ReloadOutcome =
  | { url: string; status: 'loaded' }
  /** No connection could be made or it broke before an answer: the server is not serving at all. */
  | { url: string; status: 'unreachable'; reason: string }
  | { url: string; status: 'failed'; error: WeightReloadError };

/** Error codes of a connection that never reached a server or broke under it (Node's and undici's). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/**
 * POST {base}/update_weights_from_disk {model_path: dir} (SGLang's route, which `taorl serve` speaks too) and
 * reads SGLang's answer {success, message}: anything but success true is a failure naming the server. `apiKey`,
 * when given, is sent as a bearer token.
 */
export async function reloadWeights(
  base: string,
  dir: string,
  timeoutMs: number,
  apiKey?: string,
): Promise<ReloadOutcome> {
  const url = `${base}/update_weights_from_disk`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      },
      body: JSON.stringify({ model_path: dir }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code !== undefined && UNREACHABLE_CODES.has(cause.code)) {
      const message = cause.message ?? '';
      const reason = message.includes(cause.code) ? message : `${message} (${cause.code})`.trim();
      return { url: base, status: 'unreachable', reason };
    }
    const detail =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms (remote.timeoutMs); its weights are unknown`
        : (cause?.message ?? (error as Error).message);
    return { url: base, status: 'failed', error: new WeightReloadError(base, detail) };
  }
  let answer: { success?: unknown; message?: unknown } | undefined;
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    answer = undefined;
  }
  if (answer?.success === true && response.ok) return { url: base, status: 'loaded' };
  const message =
    typeof answer?.message === 'string'
      ? answer.message
      : `unexpected answer ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`;
  return {
    url: base,
    status: 'failed',
    error: new WeightReloadError(base, `HTTP ${response.status}: ${message}`),
  };
}

/**
 * The Hugging Face folders the servers load: `<root>/step-<n>`, written to a temporary folder and renamed, so a
 * server never reads a half-written one. Only the newest two stay (the one just pushed and the one before, which
 * a slow server may still be reading); older ones, also those of earlier runs, are removed.
 */
export class WeightFolders {
  readonly root: string;
  /** The folders this run wrote, newest last (at most two). */
  private written: string[] = [];

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Saves the policy as `step-<steps>` and returns its absolute path. */
  async save(policy: Pick<Policy, 'save'>, steps: number): Promise<string> {
    const dir = join(this.root, `step-${steps}`);
    const partial = join(this.root, `.step-${steps}.partial`);
    rmSync(partial, { recursive: true, force: true });
    await policy.save(partial);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    this.written = [...this.written.slice(-1), dir];
    for (const name of readdirSync(this.root)) {
      const path = join(this.root, name);
      if (/^step-\d+$/.test(name) && !this.written.includes(path))
        rmSync(path, { recursive: true, force: true });
    }
    return dir;
  }
}
