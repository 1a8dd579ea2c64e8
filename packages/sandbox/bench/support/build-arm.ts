// One build of @taorl/sandbox per process, for the benches that compare two builds (SANDBOX_BEFORE). Two builds
// imported into one process share the plug-in registry (kept on globalThis since 1e59ed0, and a built-in name is
// not registered twice), so the first build to load would serve createSandbox for both arms. Here the bench file
// forks itself once per build: the child imports only that build and answers the parent's requests with the
// bench's own handler; the parent then checks that each arm ran the build it names (`checkArms`).
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { createSandbox } from '@taorl/sandbox';

type CreateSandbox = typeof createSandbox;
const MODULE_VARIABLE = 'BENCH_ARM_MODULE';

/** What the child reports with each answer: the build it imported and the backend files its processes ran. */
export interface ArmIdentity {
  /** The file the child's import of the build resolved to. */
  readonly module: string;
  /** Absolute paths of existing files on the command lines of the sandbox's processes (pyodide/worker.mjs). */
  readonly backendFiles: readonly string[];
}

type Message<Response> =
  | { readonly kind: 'answer'; readonly response: Response; readonly identity: ArmIdentity }
  | { readonly kind: 'failure'; readonly error: string };

/** The live processes below `pid` (all threads' children, recursively), from /proc (Linux). */
export function descendants(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') children.push(...text.split(/\s+/).map(Number));
    } catch {
      // the thread ended meanwhile
    }
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function commandLineFiles(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((word) => isAbsolute(word) && /\.(mjs|js|ts|py)$/.test(word) && existsSync(word));
  } catch {
    return []; // it exited meanwhile
  }
}

/** True in a child started by `startArm`. */
export const isArmChild = process.env[MODULE_VARIABLE] !== undefined;

/**
 * The child's side: imports the build named by the parent, then answers each request with `handle`. The
 * createSandbox given to `handle` notes the files its sandboxes' processes run after each one's first call.
 */
export async function serveArm<Request, Response>(
  handle: (create: CreateSandbox, request: Request) => Promise<Response>,
): Promise<void> {
  const specifier = process.env[MODULE_VARIABLE] as string;
  const module = fileURLToPath(import.meta.resolve(specifier));
  // A build imported before this one (a value import of '@taorl/sandbox' in the bench file) would already hold the
  // registry's entries, and serve this arm; the guard's check of files cannot see that for the local backend.
  const loaded = Object.getOwnPropertySymbols(globalThis).filter((symbol) =>
    Symbol.keyFor(symbol)?.startsWith('taorl.sandbox.'),
  );
  if (loaded.length > 0) {
    throw new Error(
      `a build of @taorl/sandbox was loaded before ${module} (${loaded.map(String).join(', ')}): ` +
        'the bench file must import @taorl/sandbox as types only, or dynamically outside the arm',
    );
  }
  const build = (await import(specifier)) as { createSandbox: CreateSandbox };
  const backendFiles = new Set<string>();
  const create = (async (options: Parameters<CreateSandbox>[0]) => {
    const sandbox = await build.createSandbox(options);
    const run = sandbox.run.bind(sandbox);
    let noted = false;
    sandbox.run = async (request) => {
      const result = await run(request);
      if (!noted) {
        noted = true;
        for (const pid of descendants(process.pid)) {
          for (const file of commandLineFiles(pid)) backendFiles.add(file);
        }
      }
      return result;
    };
    return sandbox;
  }) as CreateSandbox;
  process.on('message', (request: Request) => {
    handle(create, request).then(
      (response) =>
        process.send?.({
          kind: 'answer',
          response,
          identity: { module, backendFiles: [...backendFiles] },
        } satisfies Message<Response>),
      (error: unknown) =>
        process.send?.({
          kind: 'failure',
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies Message<Response>),
    );
  });
  process.send?.({ kind: 'ready' });
}

/** One build's child process, as the parent sees it. */
export interface Arm<Request, Response> {
  readonly label: string;
  /** The module the arm was asked to import, resolved to a file. */
  readonly asked: string;
  /** What the child reported with its last answer. */
  identity: ArmIdentity | null;
  call(request: Request): Promise<Response>;
  close(): void;
}

/**
 * The parent's side: forks `script` (the bench file itself: `import.meta.filename`) with the same Node flags, to
 * import `given` (a path to a build's src/index.ts, or '@taorl/sandbox' for this checkout) and serve requests.
 * Its output goes to this process's stderr, so that stdout keeps the bench's table.
 */
export async function startArm<Request, Response>(
  label: string,
  script: string,
  given: string,
): Promise<Arm<Request, Response>> {
  // A relative path is taken from the working directory (where the bench was started), not from this file.
  const module = given.startsWith('.') ? resolve(given) : given;
  const asked = fileURLToPath(import.meta.resolve(module));
  const child: ChildProcess = fork(script, [], {
    env: { ...process.env, [MODULE_VARIABLE]: module },
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`the ${label} arm (${module}) exited: ${code ?? signal}`)),
    ),
  );
  exited.catch(() => {}); // rejections surface through the calls below
  const next = () =>
    Promise.race([
      new Promise<Message<Response> | { kind: 'ready' }>((resolve) => child.once('message', resolve)),
      exited,
    ]);
  await next();
  const arm: Arm<Request, Response> = {
    label,
    asked,
    identity: null,
    async call(request) {
      const answer = next();
      child.send(request as object);
      const message = await answer;
      if (message.kind === 'failure')
        throw new Error(`the ${label} arm (${module}) failed: ${message.error}`);
      if (message.kind !== 'answer') throw new Error(`the ${label} arm sent ${message.kind} unasked`);
      arm.identity = message.identity;
      return message.response;
    },
    close() {
      child.kill();
    },
  };
  return arm;
}

const packageDir = (module: string) => dirname(dirname(module));

/**
 * Fails loudly unless each arm imported the module it was asked for, every backend file its sandboxes ran lies in
 * that build's package directory, and the arms ran different builds. Prints one line per arm to stderr.
 */
export function checkArms(arms: readonly Arm<unknown, unknown>[]): void {
  for (const { label, asked, identity } of arms) {
    if (identity === null) throw new Error(`the ${label} arm never answered`);
    if (identity.module !== asked) {
      throw new Error(`the ${label} arm imported ${identity.module}, not ${asked}`);
    }
    const foreign = identity.backendFiles.filter((file) => !file.startsWith(packageDir(asked) + sep));
    if (foreign.length > 0) {
      throw new Error(`the ${label} arm ran ${foreign.join(', ')}, outside its build ${packageDir(asked)}`);
    }
    console.error(
      `arm ${label}: imported ${identity.module}; backend files run: ${identity.backendFiles.join(', ') || 'none seen'}`,
    );
  }
  const modules = new Set(arms.map(({ identity }) => resolve(identity?.module ?? '')));
  if (modules.size < arms.length) throw new Error('two arms imported the same build');
}
