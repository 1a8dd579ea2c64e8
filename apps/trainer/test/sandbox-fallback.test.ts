import { expect, it } from 'vitest';
import { openSession, parseConfig, type Session } from '../src/index.js';

// Where the local sandbox cannot isolate (here: a bubblewrap that does not exist), the session runs the tool calls
// in the pyodide backend and says so in one line on stderr.
it('gives way to the pyodide backend, with a one-line notice, where bubblewrap cannot run', async () => {
  const yaml = 'tool: {sandbox: {name: local, bwrapPath: /nonexistent/bwrap, workers: 1}}\n';
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let session: Session | undefined;
  try {
    session = await openSession(parseConfig(yaml, 'run.yaml'), 'run.yaml', { localPolicy: false });
  } finally {
    process.stderr.write = write;
  }
  if (session === undefined) throw new Error('openSession returned nothing');
  try {
    expect(session.sandbox.backend).toBe('pyodide');
    const notices = written.filter((text) => text.startsWith('taorl: the local sandbox cannot run here'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /\(cannot run \/nonexistent\/bwrap: .*\); tool calls run in the pyodide backend .*\n$/,
    );
    expect(await session.sandbox.run({ code: 'print(1 + 1)' })).toMatchObject({
      status: 'ok',
      stdout: '2\n',
    });
  } finally {
    await session.close();
  }
}, 900_000);
