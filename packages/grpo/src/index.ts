/** The package's name as published, for diagnostics and error messages. */
export const packageName = '@taorl/grpo' as const;
