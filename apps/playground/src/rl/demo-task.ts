import type { PolicyLossConfig } from '@taorl/grpo';
import type { RolloutOptions } from '@taorl/rollout';
import { z } from 'zod';

/**
 * The demo's RL task and settings as the asset command writes them (task.json, from the demo config through the
 * trainer's own config loader): the arith-tool mix and seed, the system message the trainer puts before each
 * question (the tool format's instructions and the answer rule), the tool's limits, the rollout options, and the
 * RL step's sizes and plug-in names. The page changes the seed, filters and shaper; the rest is the demo's.
 */
export interface DemoTask {
  seed: number;
  /** task.mix of the arith-tool task (@taorl/data arithMix). */
  mix: string;
  /** The system message of every prompt, as the trainer renders tool.instructions; null for none (the demo's). */
  system: string | null;
  tool: { format: string; timeoutMs: number; observationChars: number; maxInfraFailureRate: number };
  /** The rollout options of RL steps; the update divides its logits by the sampling temperature too. */
  rollout: Omit<RolloutOptions, 'seed'> & { sampling: { temperature: number } };
  rl: {
    groups: number;
    groupSize: number;
    maxGenBatches: number;
    learningRate: number;
    maxGradNorm: number;
    microBatchRows: number;
    estimator: string;
    shaper: string;
    filters: string[];
    loss: PolicyLossConfig;
    overlong: { buffer: number; factor: number; policyTokensOnly: boolean } | null;
  };
}

const count = z.number().int().min(1);
const demoTaskSchema = z.object({
  seed: z.number().int().min(0),
  mix: z.string(),
  system: z.string().nullable(),
  tool: z.object({
    format: z.string(),
    timeoutMs: count,
    observationChars: count,
    maxInfraFailureRate: z.number().min(0).max(1),
  }),
  rollout: z.object({
    maxTurns: z.number().int().min(0),
    maxResponseTokens: count,
    sampling: z.object({
      temperature: z.number().min(0),
      topP: z.number().optional(),
      topK: z.number().optional(),
    }),
    lanes: count,
    unparseableCall: z.enum(['observe', 'end', 'text']).optional(),
    maxWallMs: z.number().optional(),
    maxRepeatedCalls: z.number().optional(),
    checkTokenIntegrity: z.boolean().optional(),
  }),
  rl: z.object({
    groups: count,
    groupSize: count,
    maxGenBatches: count,
    learningRate: z.number().positive(),
    maxGradNorm: z.number().positive(),
    microBatchRows: count,
    estimator: z.string(),
    shaper: z.string(),
    filters: z.array(z.string()),
    loss: z.object({
      name: z.string().optional(),
      options: z.record(z.string(), z.unknown()).optional(),
      clipLow: z.number().optional(),
      clipHigh: z.number().optional(),
      dualClip: z.number().nullable().optional(),
      klCoef: z.number().optional(),
      entropyCoef: z.number().optional(),
    }),
    overlong: z.object({ buffer: z.number(), factor: z.number(), policyTokensOnly: z.boolean() }).nullable(),
  }),
});

/** task.json of the asset folder, checked; an error names the URL and the field. */
export function parseDemoTask(json: unknown, url: string): DemoTask {
  const parsed = demoTaskSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${url}: ${issue?.path.join('.') || '(root)'}: ${issue?.message} (write the asset again with ` +
        '`pnpm --filter @taorl/playground asset`)',
    );
  }
  return parsed.data as DemoTask;
}
