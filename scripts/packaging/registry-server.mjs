// A throwaway npm registry (verdaccio) for the packaging check: it stores what is published to it in the folder
// given as the first argument, proxies nothing, listens on a free localhost port and prints its URL. Its parent
// (scripts/packaging/local-registry.mjs) ends it with SIGTERM.
import { join } from 'node:path';
import { runServer } from 'verdaccio';

const folder = process.argv[2];
const server = await runServer({
  self_path: folder,
  storage: join(folder, 'storage'),
  auth: { htpasswd: { file: join(folder, 'htpasswd'), max_users: 1 } },
  uplinks: {},
  packages: {
    '@taorl/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
    '**': { access: '$all' },
  },
  web: { enable: false },
  log: { type: 'stdout', format: 'pretty', level: 'warn' },
});
server.listen(0, '127.0.0.1', () => {
  console.log(`local registry listening on http://127.0.0.1:${server.address().port}/`);
});
