// The inside of the pyodide backend (src/pyodide/): Pyodide interpreters, in their own process (Node: a child
// process started by src/pyodide/interpreter-process.ts) or web worker, that either make the memory snapshot every
// run starts from, or load that snapshot, close the bridges to their host and serve runs. With `reuse` (Node), the
// process serves the next run too: after a clean run it puts the interpreter back in place as it was when ready
// (`keep`, `putBack`: memory, references, file system), and on any doubt loads a fresh one from the snapshot, so
// that no run sees another's state and no run pays for starting a process; without it (a web worker), the host
// discards the process after its one run. Plain JavaScript without Node built-ins at the top level, so that the same
// file runs in a browser's web worker.
//
// Messages in: {type: 'make', files, preload, runner, indexURL?} |
// {type: 'start', snapshot, site, reuse, indexURL?} | {type: 'run', request}.
// Messages out: {type: 'snapshot', snapshot, site} | {type: 'ready', fresh} | {type: 'output', stream, data} |
// {type: 'done', exitCode, files, reusable} | {type: 'failed', message}.
// In a browser, `indexURL` is where the page serves the npm package pyodide's files; the browser entry's build
// carries this file as text and starts it from a blob: URL (src/pyodide/browser-sources.ts), so it imports nothing.

const IS_NODE = typeof process === 'object' && typeof process.send === 'function';
/** The files of the npm package pyodide that an interpreter loads (a browser: each fetched from `indexURL`). */
const PYODIDE_ASSETS = [
  'pyodide.mjs',
  'pyodide.asm.mjs',
  'pyodide.asm.wasm',
  'python_stdlib.zip',
  'pyodide-lock.json',
];
/** Where the snapshot's extra packages live: a zip of .pyc files on sys.path, rewritten into each new interpreter. */
const SITE_ZIP = '/lib/taorl-site.zip';
/** The run's working directory (Pyodide's home); `files` and `fetchFiles` are relative to it. */
const SCRATCH = '/home/pyodide';
const WASM_PAGE = 65536;
// Emscripten's errno numbers (not Linux's).
const EFBIG = 22;
const ENOSPC = 51;
const EPERM = 63;

const send = IS_NODE ? (message) => process.send(message) : (message) => globalThis.postMessage(message);
const onMessage = IS_NODE
  ? (handle) => process.on('message', handle)
  : (handle) => globalThis.addEventListener('message', (event) => handle(event.data));

/**
 * The interpreter's linear memory, caught as the runtime instantiates it: the snapshot may need more than the
 * initial size (Pyodide's restore writes it without growing), and a cap on `grow` is the run's memory limit (the
 * runtime's allocator then fails, and Python raises MemoryError).
 */
const memory = { instance: null, minimumBytes: 0, limitBytes: Number.POSITIVE_INFINITY };
for (const name of ['instantiate', 'instantiateStreaming']) {
  const original = WebAssembly[name];
  WebAssembly[name] = async (...args) => {
    const result = await original.apply(WebAssembly, args);
    const exported = result.instance?.exports.memory;
    if (exported instanceof WebAssembly.Memory && memory.instance === null) capMemory(exported);
    return result;
  };
}

function capMemory(wasmMemory) {
  memory.instance = wasmMemory;
  const grow = wasmMemory.grow.bind(wasmMemory);
  const missing = Math.ceil((memory.minimumBytes - wasmMemory.buffer.byteLength) / WASM_PAGE);
  if (missing > 0) grow(missing);
  Object.defineProperty(wasmMemory, 'grow', {
    value: (pages) => {
      if (wasmMemory.buffer.byteLength + pages * WASM_PAGE > memory.limitBytes) {
        throw new RangeError('the run reached its memory limit');
      }
      return grow(pages);
    },
  });
}

/**
 * Bounds the in-memory file system: a file past `maxFileBytes` fails with EFBIG (as RLIMIT_FSIZE makes a write
 * fail), all files together past `totalBytes` with ENOSPC (they live in the process's memory). Writes and
 * truncations are where a file grows (MEMFS stores a first write without growing the file's storage); its files
 * take their write from the operations table MEMFS made at start, a copy of its stream_ops. Installed once per
 * interpreter; each run sets `fileLimits` for its code (an interpreter put back in place serves several runs), and
 * they are unbounded otherwise (the request's files, the put-back's rewriting of the kept files). The same places
 * record which files' bytes changed (`writtenFiles`). A shared mapping's write-back (msync, at munmap) goes to
 * MEMFS's own write, not the table's, so it is bounded and recorded on its own.
 */
const fileLimits = { maxFileBytes: Infinity, totalBytes: Infinity, total: 0 };

/**
 * The files whose bytes changed since the interpreter's state was kept: a write, a truncation or a shared mapping's
 * write-back, the only ways to a file's bytes from Python (which reaches no JavaScript object). `putBackTree` copies
 * back only these files' kept bytes: copying every kept file at every put-back (the 40 MB site zip among them) cost
 * more than the fresh load it replaces.
 */
const writtenFiles = new Set();

function capFiles(py) {
  const memfs = py.FS.filesystems.MEMFS;
  const grow = (node, size) => {
    if (size > fileLimits.maxFileBytes) throw new py.FS.ErrnoError(EFBIG);
    const growth = Math.max(0, size - node.usedBytes);
    if (fileLimits.total + growth > fileLimits.totalBytes) throw new py.FS.ErrnoError(ENOSPC);
    fileLimits.total += growth;
    writtenFiles.add(node);
  };
  const fileOps = memfs.ops_table.file.stream;
  const { write, msync } = fileOps;
  fileOps.write = function (stream, buffer, offset, length, position, canOwn) {
    grow(stream.node, position + length);
    return write.call(this, stream, buffer, offset, length, position, canOwn);
  };
  fileOps.msync = function (stream, buffer, offset, length, mmapFlags) {
    grow(stream.node, offset + length);
    return msync.call(this, stream, buffer, offset, length, mmapFlags);
  };
  const { resizeFileStorage } = memfs;
  memfs.resizeFileStorage = function (node, size) {
    grow(node, size);
    return resizeFileStorage.call(this, node, size);
  };
}

/**
 * Closes every way found from Python to the host, before any code of the run: the `js` module is an empty object
 * (jsglobals at load), `pyodide_js` (the Pyodide API, with its file system and loader) is gone, sockets fail at
 * creation, no file system but the in-memory one can be mounted, and in Node the runtime's `system()` (os.system)
 * finds no child_process: every Node module load is refused from here on. What JavaScript a Python object's proxy
 * reaches (a function's constructor) cannot compile code: Node starts this process with
 * --disallow-code-generation-from-strings; in a browser, the function constructors are replaced.
 */
async function closeBridges(py) {
  py.unregisterJsModule('pyodide_js');
  py.unregisterJsModule('js');
  py.runPython(
    "for _name in ('js', 'pyodide_js'):\n    __import__('sys').modules.pop(_name, None)\ndel _name",
  );
  for (const name of Object.keys(py.FS.filesystems)) {
    if (name !== 'MEMFS') delete py.FS.filesystems[name];
  }
  py._module.SOCKFS.createSocket = () => {
    throw new py.FS.ErrnoError(EPERM);
  };
  if (IS_NODE) {
    const { default: Module } = await import('node:module');
    if (nodeModules.load === null) {
      nodeModules.load = Module._load;
      const refusedProcess = {
        status: 127,
        signal: null,
        error: new Error('no processes in the pyodide sandbox'),
      };
      Module._load = function (request, ...rest) {
        if (nodeModules.open) return nodeModules.load.call(this, request, ...rest);
        if (/^(node:)?child_process$/.test(request)) return { spawnSync: () => refusedProcess };
        throw new Error(`the pyodide sandbox loads no Node module (${request})`);
      };
    }
    nodeModules.open = false;
  } else {
    refuseCodeGeneration();
  }
}

/**
 * A browser's worker runs with the CSP its script was served with, which may allow eval: the constructor of each
 * kind of function (what a Python proxy's `constructor.constructor` reaches) is replaced by one that refuses, so
 * that no JavaScript reached from Python compiles code, whatever the page's server sends.
 */
function refuseCodeGeneration() {
  const refuse = () => {
    throw new EvalError('Code generation from strings disallowed in the pyodide sandbox');
  };
  for (const kind of [() => {}, async () => {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(kind), 'constructor', { value: refuse });
  }
}

/**
 * Node's module loader as it was, and whether it is open: only while an interpreter loads (Pyodide's runtime
 * requires fs and path then), never while a run's code or anything it scheduled can run.
 */
const nodeModules = { load: null, open: true };

function writeFiles(py, files) {
  for (const { path, content } of files) {
    const full = path.startsWith('/') ? path : `${SCRATCH}/${path}`;
    py.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py.FS.writeFile(full, content);
  }
}

function readFiles(py, paths) {
  const found = [];
  for (const path of paths) {
    const full = path.startsWith('/') ? path : `${SCRATCH}/${path}`;
    try {
      if (py.FS.isFile(py.FS.lstat(full).mode)) found.push({ path, content: py.FS.readFile(full) });
    } catch {
      // missing, or under a file: left out, as the local backend does
    }
  }
  return found;
}

function forwardOutput(py, maxOutputBytes) {
  for (const stream of ['stdout', 'stderr']) {
    let sent = 0;
    const write = (buffer) => {
      // One byte past the cap tells the host the code went over it; nothing more crosses.
      const room = maxOutputBytes + 1 - sent;
      if (room > 0) {
        const data = buffer.slice(0, room);
        sent += data.length;
        send({ type: 'output', stream, data });
      }
      return buffer.length;
    };
    (stream === 'stdout' ? py.setStdout : py.setStderr).call(py, { write, isatty: false });
  }
}

function feedStdin(py, text) {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  py.setStdin({
    read(buffer) {
      const length = Math.min(buffer.length, bytes.length - offset);
      buffer.set(bytes.subarray(offset, offset + length));
      offset += length;
      return length;
    },
    isatty: false,
  });
}

/**
 * Loads Pyodide: Node's from the package, a browser's from `indexURL`. When a browser's load fails, the error
 * names the file of Pyodide that the page does not serve: a fetch that fails rejects at once (Pyodide itself would
 * wait forever for a WebAssembly module that never comes), and for a failed import each file is fetched to find it.
 */
async function load(indexURL, options) {
  if (IS_NODE) {
    const { loadPyodide } = await import('pyodide');
    return loadPyodide(options);
  }
  const watched = watchFetches();
  try {
    const { loadPyodide } = await import(new URL('pyodide.mjs', indexURL).href);
    return await Promise.race([loadPyodide({ ...options, indexURL }), watched.failed]);
  } catch (error) {
    for (const name of PYODIDE_ASSETS) {
      const url = new URL(name, indexURL).href;
      const problem = await fetch(url).then(
        (response) => (response.ok ? null : `HTTP ${response.status}`),
        (fetchError) => String(fetchError),
      );
      if (problem !== null) throw assetError(url, problem);
    }
    throw error;
  } finally {
    watched.stop();
  }
}

function assetError(url, problem) {
  return new Error(
    `Pyodide's file ${url} did not load (${problem}): serve the npm package pyodide's files at indexURL`,
  );
}

/** `failed` rejects, naming the file, when a fetch fails or answers with an error status until `stop`. */
function watchFetches() {
  const original = globalThis.fetch;
  let fail = () => {};
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  globalThis.fetch = async (resource, init) => {
    const url = String(resource instanceof Request ? resource.url : resource);
    let response;
    try {
      response = await original.call(globalThis, resource, init);
    } catch (error) {
      fail(assetError(url, String(error)));
      throw error;
    }
    if (!response.ok) fail(assetError(response.url || url, `HTTP ${response.status}`));
    return response;
  };
  return { failed, stop: () => (globalThis.fetch = original) };
}

async function make({ files, preload, runner, indexURL }) {
  const py = await load(indexURL, { _makeSnapshot: true, jsglobals: Object.create(null) });
  let site = null;
  if (files.length > 0) {
    writeFiles(
      py,
      files.map(({ path, content }) => ({ path: `/tmp/taorl-site/${path}`, content })),
    );
    // Compiled once here, so no run compiles the packages' sources again.
    py.runPython(
      `import shutil, sys, zipfile\nwith zipfile.PyZipFile(${JSON.stringify(SITE_ZIP)}, "w") as site:\n` +
        '    for entry in sorted(__import__("os").listdir("/tmp/taorl-site")):\n' +
        '        site.writepy("/tmp/taorl-site/" + entry)\n' +
        `shutil.rmtree("/tmp/taorl-site")\nsys.path.append(${JSON.stringify(SITE_ZIP)})`,
    );
    site = py.FS.readFile(SITE_ZIP);
  }
  py.runPython(runner);
  for (const name of preload) py.pyimport(name);
  send({ type: 'snapshot', snapshot: py.makeMemorySnapshot(), site });
}

/**
 * An interpreter's state when it became ready, for putting it back in place after a run instead of loading a fresh
 * one from the snapshot (each load copies the snapshot into new WebAssembly memory and instantiates the module: most
 * of a call's cost). What a run can change is kept: the linear memory (all of Python's state: modules, builtins,
 * globals, the allocator), the stack pointer (the one mutable WebAssembly global the C code moves), Pyodide's table
 * of references to JavaScript values (to check that the run left it as it was), and what lives in JavaScript
 * objects: the in-memory file system's tree and contents, its open descriptors and working directory. What would
 * show that a run reached beyond these (a changed reference table, a grown function table: a loaded library or a
 * callback; more loaded libraries) makes `putBack` refuse, and a fresh interpreter is loaded.
 */
function keep(py) {
  const module = py._module;
  // A proxy made during a run must never release its Python object once the memory it points into is put back.
  const registry = module.finalizationRegistry;
  module.finalizationRegistry = { register() {}, unregister: (token) => registry.unregister(token) };
  writtenFiles.clear();
  return {
    memory: new Uint8Array(memory.instance.buffer).slice(),
    stackPointer: module.___stack_pointer.value,
    tableLength: module.wasmTable.length,
    libraries: Object.keys(module.LDSO.loadedLibsByName).length,
    references: references(module),
    referenceSlots: referenceSlots(module),
    tree: keepTree(py.FS),
    streams: py.FS.streams.slice(),
    cwd: py.FS.cwd(),
  };
}

/**
 * The state of Pyodide's reference table (the JavaScript objects Python holds by index): its count and each slot's
 * bookkeeping word (a slot's version and count, or the next free one). Part of it lives outside the linear memory,
 * so a run that changed it (it kept or dropped a JavaScript object: the FFI, a JavaScript error) is not put back.
 */
function referenceSlots(module) {
  const slots = [module._hiwire_num_refs()];
  const count = references(module).length;
  for (let index = 0; index < count; index++) slots.push(module.__hiwire_slot_info(index));
  return slots;
}

/** The values of Pyodide's reference table, up to its end. */
function references(module) {
  const values = [];
  for (;;) {
    try {
      values.push(module.__hiwire_get(values.length));
    } catch {
      return values;
    }
  }
}

/** Puts the interpreter back as `keep` found it; false (and the interpreter is to be discarded) when it cannot. */
function putBack(py, state) {
  const module = py._module;
  const { FS } = py;
  if (module.wasmTable.length !== state.tableLength) return false;
  if (Object.keys(module.LDSO.loadedLibsByName).length !== state.libraries) return false;
  if (memory.instance.buffer.byteLength > state.memory.length + MAX_KEPT_GROWTH) return false;
  if (!sameItems(referenceSlots(module), state.referenceSlots)) return false;
  if (!sameItems(references(module), state.references)) return false;
  if (!putBackTree(FS, state.tree)) return false;
  for (let fd = 0; fd < FS.streams.length; fd++) {
    const stream = FS.streams[fd];
    if (stream && stream !== state.streams[fd]) FS.close(stream);
  }
  // Standard descriptors are opened again by each run's forwardOutput and feedStdin; others must be the kept ones.
  for (let fd = 3; fd < state.streams.length; fd++) if (FS.streams[fd] !== state.streams[fd]) return false;
  FS.chdir(state.cwd);
  // Last, so that nothing above leaves its mark in memory: the bytes are exactly the kept ones, pages grown since zero.
  module.___stack_pointer.value = state.stackPointer;
  const heap = new Uint8Array(memory.instance.buffer);
  heap.set(state.memory);
  heap.fill(0, state.memory.length);
  writtenFiles.clear();
  return true;
}

function sameItems(items, kept) {
  return items.length === kept.length && items.every((item, index) => item === kept[index]);
}

/** `putBack`, false where it failed part-way (the interpreter is then discarded). */
function tryPutBack(py, state) {
  try {
    return putBack(py, state);
  } catch {
    return false;
  }
}

/** Pages a run may grow past the kept memory and still be put back (zeroed at every put-back; then a fresh load). */
const MAX_KEPT_GROWTH = 64 * 1024 * 1024;

/**
 * The in-memory file system's tree (the parts the run could change: every path below the root except inside other
 * mounts), each entry with its node and what a run could change of it: mode, times, a file's bytes (a copy),
 * a link's target, a device's number. In depth-first order, so a parent comes before its children.
 */
function keepTree(FS) {
  const tree = new Map();
  const visit = (path, node) => {
    tree.set(path, {
      node,
      mode: node.mode,
      times: [node.atime, node.mtime, node.ctime],
      contents: FS.isFile(node.mode) ? node.contents.subarray(0, node.usedBytes).slice() : null,
      link: node.link,
      rdev: node.rdev,
    });
    if (FS.isDir(node.mode) && !isOtherMount(FS, node)) {
      for (const name of Object.keys(node.contents).sort()) visit(childPath(path, name), node.contents[name]);
    }
  };
  visit('/', FS.root);
  return tree;
}

/** The node at `path` in the in-memory tree, found through its directories' entries (no link or mount followed). */
function nodeAt(FS, path) {
  let node = FS.root;
  for (const name of path.split('/').filter(Boolean)) {
    if (!FS.isDir(node.mode) || isOtherMount(FS, node)) return null;
    node = Object.hasOwn(node.contents, name) ? node.contents[name] : null;
    if (node === null) return null;
  }
  return node;
}

function childPath(path, name) {
  return path === '/' ? `/${name}` : `${path}/${name}`;
}

/** A mount other than the root's in-memory one (/proc/self/fd): kept as a whole, by its node. */
function isOtherMount(FS, node) {
  return node !== FS.root && (node.mounted !== null || node.mount !== FS.root.mount);
}

/**
 * Makes the file system's tree what `keepTree` found: removes what the run created or replaced, makes again what it
 * removed, and gives each kept file the run wrote (`writtenFiles`: a run may write into a file's storage in place)
 * its kept bytes again. False when something cannot be made again (another mount's node).
 */
function putBackTree(FS, tree) {
  const remove = (path, node) => {
    if (FS.isDir(node.mode)) {
      for (const name of Object.keys(node.contents)) remove(childPath(path, name), node.contents[name]);
      FS.rmdir(path);
    } else FS.unlink(path);
  };
  const prune = (path, node) => {
    if (!FS.isDir(node.mode) || isOtherMount(FS, node)) return;
    for (const name of Object.keys(node.contents)) {
      const child = node.contents[name];
      const path_ = childPath(path, name);
      if (tree.get(path_)?.node === child) prune(path_, child);
      else remove(path_, child);
    }
  };
  prune('/', FS.root);
  for (const [path, entry] of tree) {
    let node = nodeAt(FS, path);
    if (node !== entry.node) {
      if (node !== null || isOtherMount(FS, entry.node)) return false;
      if (FS.isDir(entry.mode)) FS.mkdir(path, entry.mode);
      else if (FS.isFile(entry.mode)) FS.writeFile(path, entry.contents);
      else if (FS.isLink(entry.mode)) FS.symlink(entry.link, path);
      else FS.mknod(path, entry.mode, entry.rdev);
      node = nodeAt(FS, path);
      entry.node = node;
    }
    if (isOtherMount(FS, node)) continue;
    node.mode = entry.mode;
    [node.atime, node.mtime, node.ctime] = entry.times;
    if (FS.isFile(entry.mode) && writtenFiles.has(node)) {
      node.contents = entry.contents.slice();
      node.usedBytes = entry.contents.length;
    } else if (FS.isLink(entry.mode)) node.link = entry.link;
  }
  return true;
}

let py = null;
/** The loaded interpreter's `taorl_run`, taken before its state is kept (see `keep`). */
let runCell = null;
/** What the next interpreter loads, kept when the host reuses this process (the `reuse` of 'start'). */
let next = null;
/** The ready interpreter's state, which each clean run's end puts back in place (with `reuse` only). */
let kept = null;

async function start({ snapshot, site, reuse, indexURL }) {
  // Pyodide reads the snapshot's header as 32-bit words: a copy aligns what the channel delivered unaligned.
  const aligned = snapshot.byteOffset % 4 === 0 ? snapshot : snapshot.slice();
  if (reuse) next = { snapshot: aligned, site, indexURL };
  await loadFresh(aligned, site, indexURL);
  send({ type: 'ready', fresh: true });
}

/** A fresh interpreter from the snapshot, its bridges closed; the previous one (if any) is left to the collector. */
async function loadFresh(snapshot, site, indexURL) {
  nodeModules.open = true;
  memory.instance = null;
  memory.minimumBytes = snapshot.length;
  memory.limitBytes = Number.POSITIVE_INFINITY;
  kept = null;
  py = await load(indexURL, { _loadSnapshot: snapshot, jsglobals: Object.create(null) });
  if (site) py.FS.writeFile(SITE_ZIP, site);
  await closeBridges(py);
  capFiles(py);
  runCell = py.globals.get('taorl_run');
  if (next !== null) kept = keep(py);
}

function run({ code, stdin, files, fetchFiles, session, limits }) {
  writeFiles(py, files);
  Object.assign(fileLimits, {
    maxFileBytes: limits.maxFileBytes,
    totalBytes: limits.memoryMb * 1024 * 1024,
    total: 0,
  });
  // The highest descriptor number, as RLIMIT_NOFILE bounds it.
  py.FS.MAX_OPEN_FDS = limits.maxOpenFiles - 1;
  forwardOutput(py, limits.maxOutputBytes);
  feedStdin(py, stdin);
  memory.limitBytes = limits.memoryMb * 1024 * 1024;
  let exitCode;
  let clean = true;
  const replay = py.toPy(session);
  try {
    exitCode = runCell(code, replay);
  } catch (error) {
    clean = false;
    // os._exit() ends the runtime with its status; anything else is a fatal error of the runtime.
    if (typeof error?.status === 'number') exitCode = error.status & 0xff;
    else {
      send({ type: 'output', stream: 'stderr', data: new TextEncoder().encode(`\n${String(error)}\n`) });
      exitCode = null;
    }
  } finally {
    if (clean) replay.destroy();
  }
  memory.limitBytes = Number.POSITIVE_INFINITY;
  Object.assign(fileLimits, { maxFileBytes: Infinity, totalBytes: Infinity });
  return { exitCode, clean, files: readFiles(py, fetchFiles) };
}

/**
 * Whether the run left work for later (a timer, an immediate: what asyncio's loop and Pyodide schedule with in
 * Node), which would run its code during the next interpreter's load or run: such a process is not reused. A web
 * worker cannot tell, so it counts as having left some.
 */
function leftScheduled() {
  if (!IS_NODE) return true;
  return process.getActiveResourcesInfo().some((kind) => kind === 'Timeout' || kind === 'Immediate');
}

/**
 * Lets the jobs the run queued as microtasks (promise callbacks) run now, in its interpreter, before its 'done' and
 * any put-back. Only after a run that left no timer or immediate: this one then comes before anything it queued.
 */
function settleMicrotasks() {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The process's umask as it started: in Node the runtime's umask() sets the process's own (process.umask), which
 * outlives the interpreter; every run starts with this one.
 */
const startUmask = IS_NODE ? process.umask() : null;

async function serve(request) {
  if (startUmask !== null) process.umask(startUmask);
  // A run never has more memory than its limit: a put-back interpreter keeps the pages earlier runs grew.
  const limitBytes = request.limits.memoryMb * 1024 * 1024;
  if (kept !== null && memory.instance.buffer.byteLength > limitBytes) {
    await loadFresh(next.snapshot, next.site, next.indexURL);
  }
  const { exitCode, clean, files } = run(request);
  let reusable = next !== null && !leftScheduled();
  if (reusable) {
    await settleMicrotasks();
    reusable = !leftScheduled();
  }
  send({ type: 'done', exitCode, files, reusable });
  if (!reusable) return;
  // A clean run's interpreter is put back as it was when it became ready; any doubt loads a fresh one instead.
  const putBack = clean && kept !== null && tryPutBack(py, kept);
  if (!putBack) await loadFresh(next.snapshot, next.site, next.indexURL);
  send({ type: 'ready', fresh: !putBack });
}

onMessage(async (message) => {
  try {
    if (message.type === 'make') await make(message);
    else if (message.type === 'start') await start(message);
    else if (message.type === 'run') await serve(message.request);
  } catch (error) {
    send({ type: 'failed', message: String(error?.stack ?? error) });
  }
});
