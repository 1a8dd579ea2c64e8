import { registerPolicyLoss, vanillaPolicyLoss } from '@taorl/grpo';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, parseConfig } from '../src/index.js';
import { rlComponents } from '../src/run/components.js';

// A user's loss with an option: the vanilla surrogate, whose option `scale` its zod schema checks.
registerPolicyLoss('components-test-loss', () => vanillaPolicyLoss, {
  schema: z.strictObject({ scale: z.number().positive().default(1) }),
});

const componentsOf = (yaml: string) => rlComponents(parseConfig(yaml, 'run.yaml'), 'run.yaml');

describe('plug-ins named by the config', () => {
  it('passes a user loss its own options and keeps the fields every loss shares apart', () => {
    const { loss } = componentsOf('rl:\n  loss: { name: components-test-loss, scale: 2, clipLow: 0.1 }\n');
    expect(loss).toEqual({ name: 'components-test-loss', clipLow: 0.1, options: { scale: 2 } });
  });

  it('names the config field of an option the loss refuses', () => {
    expect(() => componentsOf('rl:\n  loss: { name: components-test-loss, scale: -1 }\n')).toThrow(
      /^run\.yaml: rl\.loss: policy loss "components-test-loss": option 'scale': /,
    );
    const error = (() => {
      try {
        componentsOf('rl:\n  loss: { name: vanilla, clipHi: 0.3 }\n');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('rl.loss');
    expect((error as Error).message).toContain(
      "policy loss 'vanilla': takes no options, got 'clipHi' (did you mean 'clipHigh' for 'clipHi'?)",
    );
  });

  it('refuses options of a tool format and suggests the name of a misspelled one', () => {
    expect(() => componentsOf('tool:\n  format: { name: hermes, strict: true }\n')).toThrow(
      `run.yaml: tool.format: tool format "hermes": takes no options, got 'strict'`,
    );
    expect(() => componentsOf('tool:\n  format: hermess\n')).toThrow(
      'run.yaml: tool.format: unknown tool format "hermess" (did you mean "hermes"?)',
    );
  });
});
