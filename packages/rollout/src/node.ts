// The Node entry: the inference-server adapters' HTTP client (keep-alive connections that close() ends, answer
// size caps, timeouts, retries over a pool of servers). Everything it shares with the portable entry comes from
// '@taorl/rollout', so each class (RemotePolicyError, WireFields) exists once whichever entry a user imports.

export { remotePolicyDefaults } from '@taorl/rollout';
export { type AnswerLimits, defaultAnswerLimits } from './servers/json-http';
export { type RemoteApi, RemotePolicy, type RemotePolicyOptions } from './servers/remote-policy';
export type { RemoteServerStats } from './servers/server-pool';
