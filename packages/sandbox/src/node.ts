// Node-only parts of @taorl/sandbox: the HTTP server that serves a sandbox behind SandboxFusion's API.
export type { ClampedLimit, ServedRunCodeRequest, ServedRunCodeResponse } from './serve/run-code-api';
export { type SandboxServer, type SandboxServerOptions, startSandboxServer } from './serve/server';
