// The package's entry: importing it registers its three plug-ins, which a taorl config then selects by name
// (`rl.estimator: sign`, `rl.filters: [{name: max-response-tokens, ...}]`, `rl.loss: {name: capped-reinforce}`).
import './sign-estimator.js';
import './max-response-tokens.js';
import './capped-reinforce.js';
