/**
 * Pretrains the demo's base model (configs/pretrain.yaml: the tiny model on the arith-tool `pretrain` mix) and
 * writes it with its provenance; the shipped apps/trainer/base/ was made by running this with no arguments.
 *
 *   pnpm --filter ./apps/trainer pretrain-base [outDir=base] [evalEvery=250] [field=value ...]
 */

import { resolve } from 'node:path';
import { pretrainBase } from '../src/experiments/pretrain-base.js';
import { loadConfig } from '../src/index.js';
import { openSession } from '../src/session/session.js';
import { presetPath } from '../src/util/shipped.js';

const args = process.argv.slice(2);
const outDir = resolve(args[0] ?? 'base');
const config = loadConfig(presetPath('pretrain'), [...args.slice(2), `outDir=${outDir}/run`]);
const session = await openSession(config, 'pretrain.yaml');
await pretrainBase(session, outDir, {
  evalEvery: Number(args[1] ?? 250),
  command: `pnpm --filter ./apps/trainer pretrain-base ${args.join(' ')}`.trim(),
  log: (line) => console.log(line),
});
console.log(`saved ${outDir}`);
await session.close();
