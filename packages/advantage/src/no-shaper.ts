import { checkOptionNames } from './options';
import { shaperRegistry } from './shaper-registry';
import { type EntropyShaper, shapingTarget } from './shaping';

/** The identity: advantages copied unchanged (the bonus turned off). */
export function noShaper(options: Readonly<Record<string, unknown>> = {}): EntropyShaper {
  checkOptionNames('none', options, []);
  return {
    name: 'none',
    shape: (_batch, advantages, shapeOptions) => ({
      advantages: shapingTarget(advantages, shapeOptions),
      diagnostics: {
        shaper: 'none',
        candidateTokens: 0,
        selectedTokens: 0,
        entropyThreshold: null,
        entropyScale: null,
        meanBonus: 0,
        maxBonus: 0,
      },
    }),
  };
}

shaperRegistry.registerBuiltIn('none', noShaper);
