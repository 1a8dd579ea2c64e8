/**
 * One arm of the ablation: a name, what it tests, and the config overrides (`--set` assignments) that turn the base
 * config into it. The TAO-RL arms keep the base's estimator, loss, clip-higher and overlong shaping, so they differ
 * only in the filters and the entropy shaper; the arms of issue 34 (gspo, roc, void-turn, correction) change one
 * thing against grpo each.
 */
export interface AblationVariant {
  name: string;
  description: string;
  overrides: readonly string[];
}

const arm = (name: string, description: string, filters: string, shaper: string): AblationVariant => ({
  name,
  description,
  overrides: [`rl.filters=${filters}`, `rl.shaper=${shaper}`],
});

/**
 * The arms, in table order. C1 = execution validity, C2 = answer discriminability (TAO-RL section 3.1);
 * "bonus" is TAO-RL's post-tool entropy bonus (section 3.2); aepo and cheng replace that bonus with the other
 * published entropy shapers, with both filters on, so they compare against full TAO-RL.
 */
export const ablationVariants: readonly AblationVariant[] = [
  arm('grpo', 'GRPO: no filter, no entropy bonus', '[]', 'none'),
  arm('c1', '+ C1 (execution validity) only', '[execution-validity]', 'none'),
  // Issue 48's follow-up: on the chain-tool task RL took lucky answers without any call, which C1 keeps by default.
  arm(
    'c1-reject',
    '+ C1 that also drops trajectories without any tool call (noToolCalls: reject)',
    '[{name: execution-validity, noToolCalls: reject}]',
    'none',
  ),
  arm('c2', '+ C2 (answer discriminability) only', '[answer-discriminability]', 'none'),
  arm('c1+c2', '+ both filters (tool-aware)', '[tool-aware]', 'none'),
  arm('bonus', '+ post-tool entropy bonus only', '[]', 'tao'),
  arm('tao-rl', 'full TAO-RL: both filters + post-tool bonus', '[tool-aware]', 'tao'),
  arm('aepo', 'both filters + AEPO entropy shaping', '[tool-aware]', 'aepo'),
  arm('cheng', 'both filters + Cheng et al. entropy advantage', '[tool-aware]', 'cheng'),
  {
    name: 'gspo',
    description: 'GRPO with the GSPO loss (sequence-level ratio, clip 3e-4 / 4e-4, seq-mean aggregation)',
    overrides: ['rl.filters=[]', 'rl.shaper=none', 'rl.loss=gspo'],
  },
  {
    name: 'roc',
    description:
      'GRPO with resample-on-correct: 16 rollouts per question cut to 8 (twice the rollout budget, counted)',
    overrides: ['rl.filters=[{name: resample-on-correct, size: 8}]', 'rl.groupSize=16', 'rl.shaper=none'],
  },
  arm(
    'void-turn',
    'GRPO with the void-turn filter (SimpleTIR: mask trajectories with a void turn)',
    '[void-turn]',
    'none',
  ),
  {
    name: 'correction',
    description: 'GRPO with pi_old from the trainer and token-level rollout correction (TIS, threshold 2)',
    overrides: [
      'rl.filters=[]',
      'rl.shaper=none',
      'rl.oldLogProbs=trainer',
      'rl.correction.enabled=true',
      'rl.correction.weights=token',
    ],
  },
];

/** The arms named in a comma-separated list ('all' = every arm); an unknown name is an error listing the known. */
export function selectVariants(list: string): AblationVariant[] {
  if (list === 'all') return [...ablationVariants];
  return list.split(',').map((raw) => {
    const name = raw.trim();
    const found = ablationVariants.find((variant) => variant.name === name);
    if (found === undefined) {
      throw new RangeError(
        `unknown ablation variant '${name}' (known: ${ablationVariants.map((v) => v.name).join(', ')}, all)`,
      );
    }
    return found;
  });
}
