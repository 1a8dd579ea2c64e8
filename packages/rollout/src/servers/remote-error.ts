/**
 * A remote inference server answered in a way training cannot use (a missing or ill-typed field, lengths that
 * disagree, ids outside the vocabulary, a rejected request), or no server answered at all. The message names the
 * request URL and, where there is one, the JSON field. Answers of this kind are a configuration problem (server
 * version, flags, model), so they are not retried.
 */
export class RemotePolicyError extends Error {
  override name = 'RemotePolicyError';

  /** `url` is the request's URL, e.g. http://127.0.0.1:8001/v1/completions. */
  constructor(
    readonly url: string,
    detail: string,
  ) {
    super(`${url}: ${detail}`);
  }
}

/** One server's most recent failure, as `RemoteServersUnavailableError` lists it. */
export interface ServerFailure {
  /** The server's base URL. */
  url: string;
  /** The last failure seen on it, or null when it never failed. */
  lastFailure: string | null;
}

/** Every attempt of one sample failed on a transient error (connection, timeout, HTTP 5xx / 429). */
export class RemoteServersUnavailableError extends RemotePolicyError {
  override name = 'RemoteServersUnavailableError';

  constructor(
    readonly attempts: number,
    readonly failures: readonly ServerFailure[],
  ) {
    super(
      failures.map((failure) => failure.url).join(', '),
      `no server answered a sample in ${attempts} attempts; last failure per server: ${failures
        .map((failure) => `${failure.url} -> ${failure.lastFailure ?? 'no failure'}`)
        .join('; ')}`,
    );
  }
}

/**
 * A failure worth retrying on another server: the connection failed or was closed, no answer came within the
 * timeout, the server said it is overloaded or broken (HTTP 429, 408, 5xx), or it aborted the request.
 * Internal to the retry loop; callers see `RemoteServersUnavailableError` once the attempts run out.
 */
export class TransientServerError extends Error {
  override name = 'TransientServerError';
}
