import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** True for a host name or address only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** A request refused before any route sees it: the HTTP status and why. */
export class Refused extends Error {
  override name = 'Refused';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function hostName(authority: string): string | null {
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return null;
  }
}

/**
 * What every request must pass. A web page can make a browser send requests to a loopback server (a "simple"
 * cross-origin POST needs no preflight; DNS rebinding makes the page's own name resolve to 127.0.0.1), so on a
 * loopback server the Host header must name a loopback host, a request from another Origin is refused, and POST
 * bodies must be declared application/json. With a token, every route but `open` ones needs
 * `Authorization: Bearer <token>`, compared in constant time. Written once for every taorl server
 * (`taorl-sandbox serve`, and the trainer's `taorl serve` through @taorl/sandbox/node); a refusal is a `Refused`
 * that each server answers in its own error format.
 */
export class RequestGuard {
  readonly #token: Buffer | null;

  constructor(
    private readonly loopback: boolean,
    token: string | undefined,
    private readonly open: ReadonlySet<string>,
    /** What the token is called in the refusal ('token'; the trainer's server says 'API key'). */
    private readonly credential = 'token',
  ) {
    this.#token = token === undefined ? null : digest(token);
  }

  check(request: IncomingMessage, path: string): void {
    const host = request.headers.host ?? '';
    const name = hostName(host);
    if (this.loopback && (name === null || !isLoopback(name))) {
      throw new Refused(403, `Host ${JSON.stringify(host)} is not a loopback name of this server`);
    }
    const origin = request.headers.origin;
    if (origin !== undefined && originHost(origin) !== host) {
      throw new Refused(403, `requests from origin ${origin} are not served`);
    }
    if (this.#token !== null && !this.open.has(path)) {
      const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), this.#token)) {
        throw new Refused(
          401,
          `missing or wrong ${this.credential} (Authorization: Bearer <${this.credential}>)`,
        );
      }
    }
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json') {
        throw new Refused(415, `POST bodies must be sent as application/json, got ${JSON.stringify(type)}`);
      }
    }
  }
}
