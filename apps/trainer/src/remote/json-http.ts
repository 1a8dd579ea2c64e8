import http from 'node:http';
import https from 'node:https';
import { linkAbort } from './abort-link.js';
import { RemotePolicyError, TransientServerError } from './remote-error.js';

/**
 * JSON over HTTP(S) with keep-alive connections that `close()` ends, and failures sorted for the retry loop:
 * connection errors, timeouts and HTTP 408 / 429 / 5xx are `TransientServerError`; any other HTTP error and a
 * body that is not JSON are `RemotePolicyError` (the request or the server's setup is wrong, retrying won't help).
 */
export class JsonHttpClient {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  /** GETs `url` when `body` is undefined, else POSTs it as JSON; the parsed answer. */
  async request(url: string, body: unknown, timeoutMs: number, cancel: AbortSignal): Promise<unknown> {
    const link = linkAbort([cancel], {
      ms: timeoutMs,
      reason: () => new TransientServerError(`${url}: no answer within ${timeoutMs} ms`),
    });
    try {
      return await this.send(url, body, link.signal);
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
      const request = (protocol === 'https:' ? https : http).request(
        target,
        {
          method: payload === undefined ? 'GET' : 'POST',
          agent: this.agents[protocol],
          headers: {
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          signal,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(failure(error)));
          response.on('end', () => {
            if (!response.complete) {
              reject(failure(new Error('the connection closed in the middle of the answer')));
              return;
            }
            try {
              resolve(readAnswer(url, response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      request.on('error', (error) => reject(failure(error)));
      request.end(payload);
    });
  }

  /** Closes the kept-alive connections; requests still in flight fail. */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

function readAnswer(url: string, status: number, text: string): unknown {
  const excerpt = text.length > 300 ? `${text.slice(0, 300)}...` : text;
  if (status === 408 || status === 429 || status >= 500) {
    throw new TransientServerError(`${url}: HTTP ${status}: ${excerpt}`);
  }
  if (status < 200 || status >= 300) throw new RemotePolicyError(url, `HTTP ${status}: ${excerpt}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RemotePolicyError(url, `the body is not JSON (is this the right server and API?): ${excerpt}`);
  }
}
