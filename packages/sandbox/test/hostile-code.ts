import type { ExecStatus } from '../src/index';

/** Hostile cells of the security suite (test/security.test.ts), one source for the suite and for bench/serve.ts. */
export const HOSTILE_CODE = {
  forkBomb: 'import os\nwhile True:\n    os.fork()',
  allocate10Gb: 'block = bytearray(10 * 1024**3)\nprint("allocated")',
  numpyPastLimit: 'import numpy as np\na = np.ones((40000, 40000))',
  infiniteLoop: 'print("start", flush=True)\nwhile True:\n    pass',
  busyChild: 'import subprocess, sys\nsubprocess.run([sys.executable, "-c", "while True: pass"])',
  readShadow: 'print(open("/etc/shadow").read())',
  outsideSocket: 'import socket\nsocket.create_connection(("1.1.1.1", 53), timeout=2)',
  print100Mb: 'import sys\nfor _ in range(100):\n    sys.stdout.write("x" * 2**20)',
  write1GbFile: 'with open("big.bin", "wb") as f:\n    for _ in range(1024):\n        f.write(b"x" * 2**20)',
  openManyFiles: 'handles = [open("/dev/null") for _ in range(1000)]',
  killParent:
    'import os, signal\nfor pid in (os.getppid(), 1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError as e:\n        print(pid, e.errno)\nos.kill(os.getppid(), signal.SIGKILL)',
  ctypesSegfault: 'import ctypes\nctypes.string_at(0)',
} as const;

/** Each case with the status the security suite expects of it under the default limits. */
export const HOSTILE_CASES: ReadonlyArray<[string, string, ExecStatus]> = [
  ['fork bomb', HOSTILE_CODE.forkBomb, 'error'],
  ['10 GB allocation', HOSTILE_CODE.allocate10Gb, 'memory'],
  ['numpy past the limit', HOSTILE_CODE.numpyPastLimit, 'memory'],
  ['infinite loop', HOSTILE_CODE.infiniteLoop, 'timeout'],
  ['busy child process', HOSTILE_CODE.busyChild, 'timeout'],
  ['reading /etc/shadow', HOSTILE_CODE.readShadow, 'error'],
  ['a socket to an outside address', HOSTILE_CODE.outsideSocket, 'error'],
  ['printing 100 MB', HOSTILE_CODE.print100Mb, 'output_limit'],
  ['writing a 1 GB file', HOSTILE_CODE.write1GbFile, 'error'],
  ['1000 open files', HOSTILE_CODE.openManyFiles, 'error'],
  ['killing the worker', HOSTILE_CODE.killParent, 'error'],
  ['SIGSEGV through ctypes', HOSTILE_CODE.ctypesSegfault, 'killed'],
];
