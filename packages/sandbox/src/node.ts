// Node-only parts of @taorl/sandbox: the HTTP server that serves a sandbox behind SandboxFusion's API, and the
// request guard (Host, Origin, content type, bearer token) every taorl HTTP server puts before its routes.
export { CONNECTIONS_CAP, defaultMaxConnections } from './serve/descriptors';
export { isLoopback, Refused, RequestGuard } from './serve/guard';
export type { ClampedLimit, ServedRunCodeRequest, ServedRunCodeResponse } from './serve/run-code-api';
export { type SandboxServer, type SandboxServerOptions, startSandboxServer } from './serve/server';
