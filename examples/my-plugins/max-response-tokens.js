// @ts-check
import { registerFilter, trajectoryFilter } from '@taorl/filter';
import { z } from 'zod';

/**
 * A trajectory filter with options checked by a zod schema: drops (or masks) responses longer than `maxTokens`,
 * and reports the batch's mean response length and the share it removed as its own metrics.
 */
registerFilter(
  'max-response-tokens',
  ({ maxTokens, mode }) => {
    const cap = trajectoryFilter('max-response-tokens', (t) =>
      (t.responseIds?.length ?? 0) <= maxTokens ? null : { action: mode, reason: 'too-many-tokens' },
    );
    return {
      name: cap.name,
      apply(batch, positions) {
        const result = cap.apply(batch, positions);
        const tokens = batch.reduce((sum, t) => sum + (t.responseIds?.length ?? 0), 0);
        const metrics = {
          meanResponseTokens: tokens / Math.max(1, batch.length),
          removedShare: (result.dropped.length + result.masked.length) / Math.max(1, batch.length),
        };
        return { ...result, stats: { ...result.stats, metrics } };
      },
    };
  },
  {
    schema: z.strictObject({
      maxTokens: z.number().int().min(1),
      mode: z.enum(['drop', 'mask']).default('drop'),
    }),
  },
);
