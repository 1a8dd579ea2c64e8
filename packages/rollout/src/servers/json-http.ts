import http from 'node:http';
import https from 'node:https';
import { RemotePolicyError, TransientServerError } from '@taorl/rollout';
import { linkAbort } from './abort-link.js';

/** Limits on what a server's answer may be. */
export interface AnswerLimits {
  /** Largest body read; a longer one is cut off and the request fails. */
  maxBytes: number;
  /** Deepest nesting of arrays and objects accepted (wire answers nest about five levels). */
  maxDepth: number;
}

/** Default answer limits: 64 MiB holds a 32k-token generation with 20 top log-probs per token several times over. */
export const defaultAnswerLimits: AnswerLimits = { maxBytes: 64 * 1024 * 1024, maxDepth: 64 };

/**
 * JSON over HTTP(S) with keep-alive connections that `close()` ends; a request whose kept-alive connection turns
 * out closed by the server before any answer is sent again on another connection. Failures are sorted for the
 * retry loop: connection errors, timeouts and HTTP 408 / 429 / 5xx are `TransientServerError`; any other HTTP
 * error, a body that is not JSON, and an answer over the size or nesting limits are `RemotePolicyError` (the
 * request or the server's setup is wrong, retrying won't help). A bearer token, when given, is sent with every
 * request.
 */
export class JsonHttpClient {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  constructor(
    private readonly limits: AnswerLimits = defaultAnswerLimits,
    private readonly apiKey?: string,
  ) {}

  /** GETs `url` when `body` is undefined, else POSTs it as JSON; the parsed answer. */
  async request(url: string, body: unknown, timeoutMs: number, cancel: AbortSignal): Promise<unknown> {
    const link = linkAbort([cancel], {
      ms: timeoutMs,
      reason: () => new TransientServerError(`${url}: no answer within ${timeoutMs} ms`),
    });
    try {
      for (;;) {
        try {
          return await this.send(url, body, link.signal);
        } catch (error) {
          // Each stale connection is destroyed by its failure, so this ends on a fresh one at the latest.
          if (!(error instanceof StaleConnection)) throw error;
        }
      }
    } finally {
      link.dispose();
    }
  }

  private send(url: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const target = new URL(url);
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const failure = (error: Error): Error => {
      if (signal.aborted) return signal.reason instanceof Error ? signal.reason : error;
      const code = (error as NodeJS.ErrnoException).code;
      const detail = code && !error.message.includes(code) ? ` (${code})` : '';
      return new TransientServerError(`${url}: ${error.message}${detail}`);
    };
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = (protocol === 'https:' ? https : http).request(
        target,
        {
          method: payload === undefined ? 'GET' : 'POST',
          agent: this.agents[protocol],
          headers: {
            accept: 'application/json',
            ...(this.apiKey === undefined ? {} : { authorization: `Bearer ${this.apiKey}` }),
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          signal,
        },
        (response) => {
          answered = true;
          const { maxBytes } = this.limits;
          const tooLarge = () =>
            new RemotePolicyError(url, `the answer is larger than ${maxBytes} bytes (the client's limit)`);
          if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
            reject(tooLarge());
            request.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              // Settle first, so the error of the destroyed socket that follows is ignored.
              reject(tooLarge());
              request.destroy();
              return;
            }
            chunks.push(chunk);
          });
          response.on('error', (error) => reject(failure(error)));
          response.on('end', () => {
            if (!response.complete) {
              reject(failure(new Error('the connection closed in the middle of the answer')));
              return;
            }
            try {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve(readAnswer(url, response.statusCode ?? 0, text, this.limits.maxDepth));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      request.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code;
        const stale =
          request.reusedSocket && !answered && !signal.aborted && (code === 'ECONNRESET' || code === 'EPIPE');
        reject(stale ? new StaleConnection() : failure(error));
      });
      request.end(payload);
    });
  }

  /** Closes the kept-alive connections; requests still in flight fail. */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

/**
 * A kept-alive connection that failed before any answer came: the server closed it while it was idle (its
 * keep-alive timeout, 5 s on Node and uvicorn, fired as the request went out; Node 20's agent closes no idle
 * connection itself). Not the server's failure: the request is sent again on another connection.
 */
class StaleConnection extends Error {
  override name = 'StaleConnection';
}

/**
 * The deepest nesting of arrays and objects in JSON text, counted without recursion (a deep answer would
 * overflow the stack of any recursive walk over the parsed value, such as an error message's JSON.stringify).
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

function readAnswer(url: string, status: number, text: string, maxDepth: number): unknown {
  const excerpt = text.length > 300 ? `${text.slice(0, 300)}...` : text;
  if (status === 408 || status === 429 || status >= 500) {
    throw new TransientServerError(`${url}: HTTP ${status}: ${excerpt}`);
  }
  if (status < 200 || status >= 300) throw new RemotePolicyError(url, `HTTP ${status}: ${excerpt}`);
  if (nestingDepth(text) > maxDepth)
    throw new RemotePolicyError(url, `the answer nests deeper than ${maxDepth} levels (the client's limit)`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RemotePolicyError(url, `the body is not JSON (is this the right server and API?): ${excerpt}`);
  }
}
