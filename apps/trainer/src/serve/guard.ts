import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ServeRequestError } from './errors.js';

/** True for a host name or address that only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The host name of a Host header or an Origin, without the port; null when it does not parse. */
function hostName(authority: string): string | null {
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return null;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export interface RequestGuardOptions {
  /** When set, every route but the open ones needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Bound to a loopback address: the Host header must name a loopback host too (against DNS rebinding). */
  loopback: boolean;
}

/**
 * What every request must pass before a route sees it. A web page the user visits can make the browser send
 * requests to a loopback server: a "simple" cross-origin POST (text/plain, no preflight), or any request once its
 * own name resolves to 127.0.0.1 (DNS rebinding; the Host header then names the page's host). So: the Host header
 * must be a loopback name on a loopback server, a request whose Origin is not the server's own is refused, POST
 * bodies must be declared application/json (which a page cannot send cross-origin without a preflight this server
 * never approves), and with an API key every route but `open` ones needs the bearer token.
 */
export class RequestGuard {
  readonly #key: Buffer | null;

  constructor(
    private readonly options: RequestGuardOptions,
    private readonly open: ReadonlySet<string>,
  ) {
    this.#key = options.apiKey === undefined ? null : digest(options.apiKey);
  }

  check(request: IncomingMessage, path: string): void {
    const host = request.headers.host ?? '';
    const name = hostName(host);
    if (this.options.loopback && (name === null || !isLoopback(name))) {
      throw new ServeRequestError(
        `Host ${JSON.stringify(host)} is not a loopback name of this server`,
        null,
        403,
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let same = false;
      try {
        same = new URL(origin).host === host;
      } catch {
        same = false;
      }
      if (!same) throw new ServeRequestError(`requests from origin ${origin} are not served`, null, 403);
    }
    if (this.#key !== null && !this.open.has(path)) {
      const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), this.#key)) {
        throw new ServeRequestError('missing or wrong API key (Authorization: Bearer <key>)', null, 401);
      }
    }
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        throw new ServeRequestError(
          `POST bodies must be sent as content-type application/json, got ${JSON.stringify(type)}`,
          null,
          415,
        );
      }
    }
  }
}
