import { request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => unknown;
}

/**
 * One HTTP request with node:http (fetch cannot set Host), a new connection each time. `body` is sent as given
 * (an object as JSON); content-type defaults to application/json when there is a body.
 */
export function http(
  url: string,
  path: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const payload =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string' || Buffer.isBuffer(options.body)
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const sent = request(
      `${url}${path}`,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        agent: false,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json: () => JSON.parse(text),
          });
        });
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

/** A /run_code body as verl sends it, for Python. */
export function runCodeBody(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    compile_timeout: 10,
    run_timeout: 10,
    code,
    stdin: null,
    memory_limit_MB: 1024,
    language: 'python',
    files: {},
    fetch_files: [],
    ...extra,
  };
}
