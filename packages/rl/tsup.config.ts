import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// @taorl/grpo is a type-only import (UpdateStats.correction is its CorrectionMetrics): its declarations are
// inlined into this package's, so installing @taorl/rl brings neither @taorl/grpo nor TensorFlow.js.
export default defineConfig(packageBuild({ dts: { resolve: ['@taorl/grpo'] } }));
