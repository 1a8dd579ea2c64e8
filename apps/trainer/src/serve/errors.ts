/**
 * A request the server refuses, answered as HTTP `status` with the OpenAI error body that vLLM and SGLang clients
 * parse: { error: { message, type, param } }. `param` names the offending field (dotted for nested ones, e.g.
 * "sampling_params.top_k"), null when the request as a whole is at fault.
 */
export class ServeRequestError extends Error {
  override name = 'ServeRequestError';

  constructor(
    message: string,
    readonly param: string | null,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null };
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  500: 'internal_server_error',
};

export function errorBody(status: number, message: string, param: string | null = null): ErrorBody {
  return { error: { message, type: errorTypes[status] ?? 'internal_server_error', param } };
}
