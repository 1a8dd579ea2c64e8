import { type ChildProcess, spawn } from 'node:child_process';

const cli = new URL('../../src/cli.ts', import.meta.url).pathname;

/** A `taorl serve` child process (the trainer's sources through tsx) and the URL it listens on. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
  stop(): Promise<void>;
}

/** Starts `taorl serve --port 0 ...args` and resolves once it prints its listening line. */
export async function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=@taorl/source', '--import', 'tsx', cli, 'serve', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /taorl serve: listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`taorl serve exited early with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
