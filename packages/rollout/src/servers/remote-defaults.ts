/**
 * RemotePolicy's defaults (@taorl/rollout/node), also the trainer config's `remote` defaults. In the portable entry,
 * so that a config or a UI can show them without loading the HTTP client.
 */
export const remotePolicyDefaults = {
  topLogprobs: 5,
  maxConcurrentPerServer: 16,
  timeoutMs: 120_000,
  maxAttempts: 4,
  retryDelayMs: 250,
  cooldownMs: 2000,
} as const;
