/**
 * The environment variable that holds the bearer token shared by `taorl serve` and the trainer's clients (remote
 * rollouts, weight reloads, `taorl eval --endpoint`). An environment variable, not a config field or a flag, so the
 * secret stays out of run-config.json, shell history and the process list.
 */
export const API_KEY_ENV = 'TAORL_API_KEY';

/** The token from TAORL_API_KEY, or undefined when it is unset or empty. */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env[API_KEY_ENV];
  return key === undefined || key === '' ? undefined : key;
}
