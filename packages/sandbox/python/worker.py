# The Python side of the local backend, run with `python3 -c` (src/python-programs.ts assembles the text, with the
# cell runner in place of the `from cell_runner import` line below).
# It imports the preload modules once, then forks a zygote, the process every run's child is forked from and which
# never sees a request (so no run finds an earlier one in its copy of memory). The zygote keeps the next run's child
# forked and set up ahead of its request. For each request the worker takes that child, hands it the request (the
# child drops to the run's uid, sets the rlimits and executes the cell), captures output up to the cap, enforces the
# wall clock, learns the child's end from the zygote (which reaps it), kills every process the code left behind,
# wipes the scratch directory and replies.
# One JSON request per stdin line, one JSON reply per stdout line.
import base64, ctypes, gc, json, os, platform, resource, select, signal, socket, stat, sys, time, traceback
from cell_runner import exit_process, run_code_and_exit

CONFIG = json.loads(sys.argv[1])
SCRATCH = CONFIG["scratch"]
UID = CONFIG["uid"]
OWN_PID_NAMESPACE = CONFIG["ownPidNamespace"]
NESTED_PID_NAMESPACE = CONFIG["nestedPidNamespace"]
# The seat's memory cgroup ({"version": 1 or 2, "path": its directory as the worker sees it}) or None.
MEMORY_CGROUP = CONFIG["memoryCgroup"]
# Isolated, the sandbox has a tmpfs at /dev/shm (its semaphores and shared memory are the run's: multiprocessing) and
# links from top-level names absent from its read-only root (/tmp, /mnt...) to directories in it, so that the code
# may write there and a request's absolute paths land there: {"shm": "/dev/shm", "root": the name of the directory
# in it the links point into, "names": the linked names}; emptied like the scratch directory, and like it the
# run's. None unisolated (/dev/shm is the host's).
WRITABLE_ROOT = CONFIG["writableRoot"]
# __file__ of the code, as if it were run as `python3 main.py` in the scratch directory (the file is not written).
SCRIPT = os.path.join(SCRATCH, "main.py")

# The protocol pipes move to private descriptors; the child closes them before running code.
PROTO_IN = os.dup(0)
PROTO_OUT = os.dup(1)
_null = os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)
LIBC = ctypes.CDLL(None, use_errno=True)
THREAD_STACK_BYTES = 8 << 20


def keep_thread_stacks_small():
    """The worker is started with a large stack limit (src/local/local-sandbox.ts), because the kernel places the
    memory maps below the stack by the limit at exec, and a run may grow its stack to its memory limit. glibc makes
    the same limit every thread's default stack size, which RLIMIT_AS would refuse: threads keep the usual 8 MiB."""
    attr = ctypes.create_string_buffer(256)  # at least sizeof(pthread_attr_t)
    if (LIBC.pthread_attr_init(attr) != 0 or LIBC.pthread_attr_setstacksize(attr, ctypes.c_size_t(THREAD_STACK_BYTES))
            != 0 or LIBC.pthread_setattr_default_np(attr) != 0):
        raise OSError("cannot set the default stack size of threads")


keep_thread_stacks_small()


def send(message):
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(PROTO_OUT, data):]


try:
    for _name in CONFIG["preload"]:
        __import__(_name)
except BaseException as _error:
    send({"ready": False, "error": "cannot import %s: %r" % (_name, _error)})
    sys.exit(1)
try:
    exec(compile(CONFIG["warmup"], "<warmup>", "exec"), {"__name__": "__warmup__"})
except BaseException as _error:
    send({"ready": False, "error": "the warm-up code failed: %r" % (_error,)})
    sys.exit(1)
for _directory in [SCRATCH] + ([WRITABLE_ROOT["shm"]] if WRITABLE_ROOT else []):
    if UID is not None:
        os.chown(_directory, UID, UID)
        os.chmod(_directory, 0o700)
send({"ready": True, "pid": os.getpid()})

# The child's status channel, its fd 3: "R" once its setup is complete, "S" if the setup failed. The child closes it
# before the code runs, so the code cannot write to it (and forge a sandbox failure).
MARK_READY, MARK_SETUP = b"R", b"S"
LIMITS = [
    ("memoryMb", resource.RLIMIT_AS, lambda v: v * 1024 * 1024),
    ("maxProcesses", resource.RLIMIT_NPROC, lambda v: v),
    ("maxFileBytes", resource.RLIMIT_FSIZE, lambda v: v),
    ("maxOpenFiles", resource.RLIMIT_NOFILE, lambda v: v),
]


CLONE_NEWPID = 0x20000000
CAPABILITY_VERSION_3 = 0x20080522


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    if LIBC.capset(ctypes.byref(CapHeader(CAPABILITY_VERSION_3, 0)), (CapData * 2)()) != 0:
        raise OSError(ctypes.get_errno(), "capset")


# A seccomp filter for the code: no new user namespace (in one, the code would hold every capability over the
# namespaces it creates, a wide kernel surface). unshare() and clone() with CLONE_NEWUSER fail with EPERM; clone3()
# passes its flags in memory a filter cannot read, so it fails with ENOSYS and the C library falls back to clone();
# system calls of another ABI (x86's int 0x80, x32), which would bypass the numbers below, fail with ENOSYS.
CLONE_NEWUSER = 0x10000000
SECCOMP_ARCHES = {  # machine: (AUDIT_ARCH_*, clone, unshare, clone3)
    "x86_64": (0xC000003E, 56, 272, 435),
    "aarch64": (0xC00000B7, 220, 97, 435),
}
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_SET_PDEATHSIG = 38, 22, 2, 1


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def userns_filter():
    """The filter as the kernel takes it, built once in the worker; None on a machine without its numbers."""
    numbers = SECCOMP_ARCHES.get(platform.machine())
    if numbers is None:
        return None
    arch, nr_clone, nr_unshare, nr_clone3 = numbers
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    # (code, index if true, index if false, k); ret instructions ignore the indices.
    program = [
        (load, 0, 0, 4),  # 0: seccomp_data.arch
        (jeq, 2, 11, arch),  # 1: another ABI -> ENOSYS
        (load, 0, 0, 0),  # 2: seccomp_data.nr
        (jge, 11, 4, 0x40000000),  # 3: the x32 ABI -> ENOSYS
        (jeq, 11, 5, nr_clone3),  # 4: clone3 -> ENOSYS
        (jeq, 7, 6, nr_unshare),  # 5: unshare -> check the flags
        (jeq, 7, 9, nr_clone),  # 6: clone -> check the flags, anything else -> allow
        (load, 0, 0, 16),  # 7: the low 32 bits of the first argument, the flags of both calls
        (jset, 10, 9, CLONE_NEWUSER),  # 8
        (ret, 0, 0, allow),  # 9
        (ret, 0, 0, eperm),  # 10
        (ret, 0, 0, enosys),  # 11
    ]
    filters = (SockFilter * len(program))(
        *[SockFilter(code, max(t - i - 1, 0), max(f - i - 1, 0), k) for i, (code, t, f, k) in enumerate(program)]
    )
    return SockFprog(len(program), filters), filters


USERNS_FILTER = userns_filter()
PRCTL = LIBC.prctl


def forbid_user_namespaces():
    """Installs the filter in this process (inherited by everything it starts)."""
    if USERNS_FILTER is None:
        return
    if PRCTL(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if PRCTL(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(USERNS_FILTER[0]), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def mirror_end(status):
    """Ends this process the way the code's process ended, so the worker reads the code's own wait status."""
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP keep their default action anyway
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    if status is not None and os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    os.write(3, MARK_SETUP)  # the namespace's init vanished without a report: a sandbox failure
    os._exit(125)


def enter_nested_pid_namespace():
    """Without root the code shares the worker's uid and could signal it. So the code runs in a pid namespace of
    its own, where the worker has no pid: this process creates it and stays outside, a first process inside acts as
    its init (reaps, ignores every signal, drops its capabilities), and a second one runs the code and returns.
    When the code's process ends, init reports its wait status and exits, which kills the whole namespace."""
    if LIBC.unshare(CLONE_NEWPID) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWPID)")
    report_r, report_w = os.pipe()
    init_pid = os.fork()
    if init_pid != 0:
        os.close(report_w)
        report = os.read(report_r, 32)
        # Reaping init adds the code's CPU time (init reaped it) to this process's, which the worker reads.
        os.waitpid(init_pid, 0)
        mirror_end(int(report) if report else None)
    os.close(report_r)
    drop_capabilities()
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    code_pid = os.fork()
    if code_pid == 0:
        os.close(report_w)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        return
    os.close(3)  # init has nothing to say on the status channel; the code's process closes it after its setup
    for number in signal.valid_signals():
        if number != signal.SIGCHLD:
            try:
                signal.signal(number, signal.SIG_IGN)
            except (OSError, ValueError):
                pass
    while True:
        pid, status = os.wait()
        if pid == code_pid:
            os.write(report_w, str(status).encode())
            os._exit(0)


def cgroup_file(name):
    return os.path.join(MEMORY_CGROUP["path"], name)


def limit_run_memory(req):
    """Gives the seat's cgroup this run's memory limit; returns the cgroup's OOM-kill count so far."""
    if MEMORY_CGROUP is None:
        return 0
    limit_file = "memory.max" if MEMORY_CGROUP["version"] == 2 else "memory.limit_in_bytes"
    with open(cgroup_file(limit_file), "w") as handle:
        handle.write(str(req["memoryMb"] * 1024 * 1024))
    return oom_kills()


def oom_kills():
    """How many processes the kernel has killed in the seat's cgroup for want of memory (0 without a cgroup)."""
    if MEMORY_CGROUP is None:
        return 0
    counters = "memory.events" if MEMORY_CGROUP["version"] == 2 else "memory.oom_control"
    with open(cgroup_file(counters)) as handle:
        for line in handle:
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
    return 0


def cpu_seconds(req):
    """RLIMIT_CPU's soft limit: cpuTimeMs in whole seconds, rounded up. The hard limit is one second more."""
    return max(1, -(-req["cpuTimeMs"] // 1000))


REQUEST_FD = 4


def numpy_state_address():
    """Where numpy's global random state (MT19937: 624 32-bit words, then the position) lies, if it lies there as
    checked here; None without numpy, or if it does not (another numpy, another generator)."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    try:
        numpy.random.seed(20260101)
        kind, key, position = numpy.random.get_state()[:3]
        address = numpy.random.mtrand._rand._bit_generator.ctypes.state_address
        as_read = ctypes.string_at(address, MT_KEY_BYTES + ctypes.sizeof(ctypes.c_int))
    except (AttributeError, TypeError, ValueError):
        return None
    expected = key.tobytes() + bytes(ctypes.c_int(position))
    numpy.random.seed()
    return address if kind == "MT19937" and as_read == expected else None


MT_KEY_BYTES = 624 * 4
NUMPY_STATE = numpy_state_address()


def fresh_random_states():
    """A forked child inherits the zygote's random states: it draws fresh ones, so that runs differ as fresh
    interpreters would. numpy's is written in place, a random MT19937 key used from its start (numpy.random.seed()
    writes to about 120 pages of the interpreter, each a copy-on-write fault in every child; this, to a handful)."""
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if NUMPY_STATE is not None:
        ctypes.memmove(NUMPY_STATE, os.urandom(MT_KEY_BYTES), MT_KEY_BYTES)
        ctypes.c_int.from_address(NUMPY_STATE + MT_KEY_BYTES).value = 624
    elif "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


def child_prepare(stdin_fd, out_w, err_w, mark_w, request_r):
    """What the child does before its request exists, while the previous run executes: its descriptors, fresh random
    states, the seccomp filter, and last the seat's memory cgroup (moving a process between cgroups waits for the
    kernel, 15 to 50 ms here; last, so that nothing the child writes while it waits is charged to the running run)."""
    os.dup2(mark_w, 3)  # first, so that a failure below can still be reported on it
    os.dup2(stdin_fd, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.dup2(request_r, REQUEST_FD)
    os.closerange(REQUEST_FD + 1, 1 << 16)
    after_fork_in_child()
    forbid_user_namespaces()
    if MEMORY_CGROUP is not None:
        # Every process the code starts stays in the seat's cgroup: the run's memory is bounded as a whole.
        fd = os.open(cgroup_file("cgroup.procs"), os.O_WRONLY)
        try:
            os.write(fd, b"%d" % os.getpid())
        finally:
            os.close(fd)


def read_request():
    """The request the worker hands over (code, session, limits), or None when none comes."""
    data = bytearray()
    while chunk := os.read(REQUEST_FD, 65536):
        data += chunk
    os.close(REQUEST_FD)
    return json.loads(data) if data else None


def run_first_to_oom_kill():
    """The child prepared for the next request waits in the seat's memory cgroup while this run executes: the run's
    processes, not that child, are what the kernel kills when the run exhausts the cgroup's memory. Raising one's own
    score needs no privilege; done before the drop to the run's uid (which leaves /proc/self to root), and the code
    cannot lower it again."""
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, b"1000")
    finally:
        os.close(fd)


def child_setup(req):
    if MEMORY_CGROUP is not None:
        run_first_to_oom_kill()
    if NESTED_PID_NAMESPACE:
        enter_nested_pid_namespace()
    os.setsid()
    os.chdir(SCRATCH)
    if UID is not None:
        os.setgroups([])
        os.setgid(UID)
        os.setuid(UID)
    cpu_s = cpu_seconds(req)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    # As SandboxFusion does: the stack may grow to the run's memory limit (deep recursion, an lru_cache 100,000
    # calls deep). Within the hard limit the worker was given; RLIMIT_AS still bounds it.
    stack_hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    stack = req["memoryMb"] * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_STACK,
                       (stack if stack_hard == resource.RLIM_INFINITY else min(stack, stack_hard), stack_hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for field, which, scale in LIMITS:
        value = scale(req[field])
        resource.setrlimit(which, (value, value))
    os.write(3, MARK_READY)
    os.close(3)


def child_main(stdin_fd, out_w, err_w, mark_w, request_r):
    """The forked child, started before its request comes. Whatever happens, it ends in os._exit and never returns
    into the zygote's code."""
    code = 125
    try:
        try:
            child_prepare(stdin_fd, out_w, err_w, mark_w, request_r)
            req = read_request()
            if req is None:
                code = 0
                return
            child_setup(req)
        except BaseException:
            try:
                os.write(3, MARK_SETUP)
            finally:
                traceback.print_exc()
            return
        run_code_and_exit(req["code"], req["replay"], script=SCRIPT)
    finally:
        exit_process(code)  # os._exit may be what the code set it to


def leftover_pids():
    """Live processes the code may have left: those of the run's uid (as root), else those in a pid namespace
    other than the worker's (without root, each run's processes live in one of their own). Never the worker, the
    zygote or the child it prepared for the next request, which are none of these."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry) as status:
                fields = dict(line.split(":", 1) for line in status.read().splitlines() if ":" in line)
            if fields.get("State", "Z").split()[0] == "Z":
                continue
            if UID is not None:
                if int(fields["Uid"].split()[0]) == UID:
                    found.append(int(entry))
            elif os.readlink("/proc/%s/ns/pid" % entry) != WORKER_PID_NAMESPACE:
                found.append(int(entry))
        except (OSError, ValueError, KeyError):
            continue
    return found


def stop(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_leftovers(child_pid):
    """Kills every process the reaped child left behind, setsid() escapees included. False if some survive."""
    stop(child_pid)
    if UID is None and not NESTED_PID_NAMESPACE:
        return True  # unisolated and unprivileged: the process group is all that can be found
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        pids = leftover_pids()
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)
    return False


IPC_TABLES = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))


def ipc_objects():
    found = []
    for kind, call in IPC_TABLES:
        try:
            with open("/proc/sysvipc/" + kind) as table:
                found += [(call, int(row.split()[1])) for row in table.read().splitlines()[1:]]
        except OSError:
            pass
    return found


def remove_ipc_objects():
    """Removes the SysV IPC objects the run created; they outlive their creators. In the worker's own IPC namespace
    they can only be the code's. Only their owner (or CAP_SYS_ADMIN, which the worker lacks) may remove them, so a
    helper with the run's uid does it, forked only when there is something to remove."""
    objects = ipc_objects()
    if not objects:
        return
    helper = os.fork()
    if helper == 0:
        try:
            if UID is not None:
                os.setuid(UID)
            for call, ident in objects:
                # IPC_RMID is 0; semctl takes a semaphore number before the command.
                getattr(LIBC, call)(ident, 0, 0) if call == "semctl" else getattr(LIBC, call)(ident, 0, None)
        finally:
            os._exit(0)
    os.waitpid(helper, 0)


def empty_directory(top):
    """Removes everything below top; False if something could not be removed. No recursion and no long paths (the
    code may leave a tree thousands of levels deep): it walks down with fchdir, one listing per directory held in
    memory. Symbolic links are never followed (one could point outside the scratch directory), and directories the
    code locked (chmod 0) are opened up first, so that their owner can empty them even without DAC_OVERRIDE."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)  # unisolated, top's parent may be shared
    try:
        os.fchmod(fd, 0o700)
        os.fchdir(fd)
    finally:
        os.close(fd)
    pending = [os.listdir(".")]  # per level, the names still to remove
    path = []  # the directory names from top down to the current directory
    try:
        while pending:
            if not pending[-1]:
                pending.pop()
                if path:
                    os.chdir("..")
                    os.rmdir(path.pop())
                continue
            name = pending[-1].pop()
            if not os.path.isdir(name) or os.path.islink(name):
                os.unlink(name)
                continue
            try:
                os.rmdir(name)  # most directories are empty: no need to enter them
                continue
            except OSError:
                pass
            os.chmod(name, 0o700)
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                os.fchdir(fd)
            finally:
                os.close(fd)
            path.append(name)
            pending.append(os.listdir("."))
        return True
    except OSError:
        return False
    finally:
        os.chdir("/")


def wipe_scratch():
    """Empties the scratch directory (and the writable root, whose directories it recreates); False if something
    could not be removed."""
    if not (empty_directory(SCRATCH) and not os.listdir(SCRATCH)):
        return False
    if WRITABLE_ROOT is None or writable_root_untouched():
        return True
    if not (empty_directory(WRITABLE_ROOT["shm"]) and not os.listdir(WRITABLE_ROOT["shm"])):
        return False
    make_directories(WRITABLE_ROOT["shm"], [WRITABLE_ROOT["root"]])
    for name in WRITABLE_ROOT["names"]:
        make_directories(ROOT_DIRECTORY, [name])
    return True


EMPTY_TMPFS_DIRECTORY_SIZE = 40  # tmpfs counts 20 bytes a directory entry, "." and ".." included (BOGO_DIRENT_SIZE)


def writable_root_untouched():
    """Whether the writable root is as the last wipe made it: /dev/shm holding the links' directory alone, which
    holds the linked directories alone, each empty, a real directory, the run's, with its mode. True after most
    runs, and a dozen system calls instead of the fifty that emptying and remaking it take."""
    owner = os.getuid() if UID is None else UID

    def as_made(st, entries):
        return st.st_mode == stat.S_IFDIR | 0o700 and st.st_uid == owner and st.st_size == (
            EMPTY_TMPFS_DIRECTORY_SIZE + 20 * entries)

    names = WRITABLE_ROOT["names"]
    try:
        if not (as_made(os.lstat(WRITABLE_ROOT["shm"]), 1) and as_made(os.lstat(ROOT_DIRECTORY), len(names))):
            return False
        with os.scandir(ROOT_DIRECTORY) as entries:
            found = {entry.name: entry.stat(follow_symlinks=False) for entry in entries}
    except OSError:
        return False
    return sorted(found) == sorted(names) and all(as_made(st, 0) for st in found.values())


def make_directories(parent, names):
    """Makes names[0] in parent, names[1] in that, and so on, each given to the run's uid: one step per level, with
    directory descriptors (no path walked again, whatever the depth)."""
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for name in names:
            os.mkdir(name, 0o700, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
            if UID is not None:
                os.fchown(fd, UID, UID)
    finally:
        os.close(fd)


ROOT_DIRECTORY = os.path.join(WRITABLE_ROOT["shm"], WRITABLE_ROOT["root"]) if WRITABLE_ROOT else None


def place(path):
    """A request's path as (a directory of the worker's own, the path relative to it): relative paths are in the
    scratch directory; absolute ones (under a linked top-level name, checked on the Node side) in the writable
    root."""
    if path.startswith("/"):
        return WRITABLE_ROOT["shm"], WRITABLE_ROOT["root"] + path
    return SCRATCH, path


def write_files(files):
    """Writes the request's files, each directory made once: linear in the length of the paths, without recursion
    (a path may be thousands of levels deep). The scratch space was just emptied, so no link is on the way."""
    made = set()
    if ROOT_DIRECTORY is not None:
        made.update([ROOT_DIRECTORY] + [os.path.join(ROOT_DIRECTORY, name) for name in WRITABLE_ROOT["names"]])
    for item in files:
        top, relative = place(item["path"])
        path = os.path.join(top, relative)
        missing = []
        directory = os.path.dirname(path)
        while directory != top and directory not in made:
            missing.append(directory)
            directory = os.path.dirname(directory)
        if missing:
            make_directories(directory, [os.path.basename(name) for name in reversed(missing)])
            made.update(missing)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            if UID is not None:
                os.fchown(fd, UID, UID)
            data = base64.b64decode(item["data"])
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)


def fetch_files(paths, cap):
    """The regular files among paths (as place() puts them), base64, at most cap bytes each; the others are left out. Opened one name at a time without following symbolic links: the code could leave a link to a file
    the worker can read and the code cannot. O_NONBLOCK, so that a FIFO left in place of a file cannot block."""
    found = []
    for path in paths:
        top, relative = place(path)
        names = relative.split("/")  # never a link followed, as the code could have replaced the root's directory
        directory = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for name in names[:-1]:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                os.close(directory)
                directory = inner
            fd = os.open(names[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        except OSError:
            continue
        finally:
            os.close(directory)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            data = bytearray()
            while len(data) < cap:
                chunk = os.read(fd, min(65536, cap - len(data)))
                if not chunk:
                    break
                data += chunk
            found.append({"path": path, "data": base64.b64encode(bytes(data)).decode("ascii")})
        except OSError:
            continue
        finally:
            os.close(fd)
    return found


def fill_stdin(fd, encoded):
    """Writes the run's stdin into the memfd the child already holds as its fd 0 (they share the offset)."""
    data = base64.b64decode(encoded)
    while data:
        data = data[os.write(fd, data):]
    os.lseek(fd, 0, os.SEEK_SET)


class Capture:
    """One output pipe, read up to a byte cap."""

    def __init__(self, fd, cap):
        self.fd, self.cap, self.data, self.overflow, self.open = fd, cap, bytearray(), False, True

    def read(self):
        """Reads what is ready; returns True when this read first went past the cap."""
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.close()
            return False
        room = self.cap - len(self.data)
        self.data += chunk[:max(room, 0)]
        if len(chunk) > room and not self.overflow:
            self.overflow = True
            return True
        return False

    def close(self):
        if self.open:
            os.close(self.fd)
            self.open = False

    def text(self):
        return bytes(self.data).decode("utf-8", "replace")


def signal_name(number):
    """The name a signal number has in Node (real-time signals, which have none in Python's enum, as SIGRTMIN+n)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return "SIGRTMIN+%d" % (number - signal.SIGRTMIN)


def execute(req, child, zygote):
    """Prepares the scratch directory and stdin, hands the request to the waiting child and collects the run."""
    pid, stdin_fd, request_w, out_r, err_r, mark_r = child
    if not wipe_scratch():
        raise OSError("the scratch directory could not be emptied")
    try:
        write_files(req["files"])
    except OSError as error:
        # Too large for the scratch space, a name too long: the request cannot run, the worker is fine.
        stop(pid)
        zygote.reap(pid)
        return {"id": req["id"], "setupError": "cannot write the request's files: %s" % (error,),
                "clean": kill_leftovers(pid) and wipe_scratch()}
    fill_stdin(stdin_fd, req["stdin"])
    os.close(stdin_fd)
    oom_kills_before = limit_run_memory(req)
    started = time.monotonic()
    try:
        data = json.dumps({key: value for key, value in req.items() if key not in ("files", "stdin")}).encode()
        while data:
            data = data[os.write(request_w, data):]
    except BrokenPipeError:
        pass  # the child died before its request: it reported no complete setup, a sandbox_error
    os.close(request_w)
    deadline = started + req["timeoutMs"] / 1000.0
    out, err, marks = Capture(out_r, req["maxOutputBytes"]), Capture(err_r, req["maxOutputBytes"]), Capture(mark_r, 16)
    status = cpu_s = finished = None
    timed_out = output_exceeded = False
    clean = True
    while True:
        reading = [c for c in (out, err, marks) if c.open]
        if not reading and status is not None:
            break
        waiting = [c.fd for c in reading] + ([zygote.reports] if status is None else [])
        # Once the child is reaped and its processes killed, the pipes close at once; 2 s is a safety net.
        wait_s = max(0.0, deadline - time.monotonic()) if status is None else 2.0
        ready, _, _ = select.select(waiting, [], [], wait_s)
        if not ready and status is not None:
            clean = False
            break
        if not ready:
            timed_out = True
            stop(pid)
        for capture in reading:
            if capture.fd in ready and capture.read() and capture is not marks and not output_exceeded:
                output_exceeded = True
                stop(pid)
        if status is None and zygote.reports in ready:
            zygote.receive()
        if status is None and (pid in zygote.ended or timed_out or output_exceeded):
            status, cpu_s = zygote.reap(pid)
            finished = time.monotonic()
            # Whatever the code started dies with it, so the pipes reach end-of-file.
            clean = kill_leftovers(pid)
    for capture in (out, err, marks):
        capture.close()
    # Read back after every process of the run is gone, so that nothing changes the files while they are read.
    fetched = fetch_files(req["fetchFiles"], req["maxFileBytes"])
    clean = wipe_scratch() and clean
    if OWN_PID_NAMESPACE:
        remove_ipc_objects()
    signaled = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    # Code that ignores SIGXCPU runs on to RLIMIT_CPU's hard limit, where the kernel sends SIGKILL.
    cpu_limit_kill = signaled == signal.SIGKILL and cpu_s >= cpu_seconds(req)
    # The child reports its setup on the status channel before the code runs; a run the worker stopped during
    # the setup (a deadline of a few milliseconds) is that limit's.
    setup_failed = MARK_SETUP in marks.data or not (MARK_READY in marks.data or timed_out or output_exceeded)
    return {
        "id": req["id"],
        "exitCode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": signal_name(signaled) if signaled is not None else None,
        "stdout": out.text(),
        "stderr": err.text(),
        "stdoutTruncated": out.overflow,
        "stderrTruncated": err.overflow,
        "timedOut": timed_out or cpu_limit_kill,
        "outputExceeded": output_exceeded,
        "oomKilled": oom_kills() > oom_kills_before,
        "setupFailed": setup_failed,
        "durationMs": (finished - started) * 1000.0,
        "clean": clean,
        "files": fetched,
    }


def run_environment():
    """What every run's child inherits from the zygote instead of setting up itself: its environment variables and
    line-buffered output streams (they wrap descriptors 1 and 2, which each child points at its own pipes)."""
    os.environ.clear()
    os.environ.update({"HOME": SCRATCH, "TMPDIR": SCRATCH, "PATH": "/usr/local/bin:/usr/bin:/bin",
                       "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)


# The zygote forks with the C library's fork() rather than os.fork() when it is single-threaded (it is unless a
# preloaded module started a thread): os.fork() runs CPython's after-fork steps in the child, which rebuild the
# thread bookkeeping of a process that has one thread and already has it right (the GIL; threading's main thread but
# for its native id; logging's and concurrent.futures' locks, which no thread holds) and reseed `random`, writing to
# about 200 pages of the interpreter, each a copy-on-write fault in every child (tens to hundreds of microseconds on
# a VM). after_fork_in_child() does what is left of them. PyDLL keeps the GIL held across the call, as os.fork()
# does; the C library's own fork handlers run either way.
RAW_FORK = ctypes.PyDLL(None).fork if len(os.listdir("/proc/self/task")) == 1 else None


def fork():
    return os.fork() if RAW_FORK is None else RAW_FORK()


def after_fork_in_child():
    if RAW_FORK is not None and "threading" in sys.modules:
        sys.modules["threading"].main_thread()._set_native_id()
    fresh_random_states()


def start_child():
    """Forks the run's child ahead of its request; returns its pid and the parent's ends of its descriptors."""
    stdin_fd = os.memfd_create("stdin")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    mark_r, mark_w = os.pipe()
    request_r, request_w = os.pipe()
    pid = fork()
    if pid == 0:
        for fd in (out_r, err_r, mark_r, request_w):
            os.close(fd)
        child_main(stdin_fd, out_w, err_w, mark_w, request_r)
    for fd in (out_w, err_w, mark_w, request_r):
        os.close(fd)
    return pid, stdin_fd, request_w, out_r, err_r, mark_r


class Reaped(ctypes.Structure):
    """A child's end as the zygote reports it: its pid, and wait4's results as the kernel writes them (the wait status
    and struct rusage: two timevals, 14 longs)."""
    _fields_ = [("pid", ctypes.c_int), ("status", ctypes.c_int), ("usage", ctypes.c_long * 18)]


def offer_child(channel):
    """Forks the next run's child and hands its pid and the parent's ends of its descriptors to the worker."""
    pid, *fds = start_child()
    socket.send_fds(channel, [pid.to_bytes(4, "little")], fds)
    for fd in fds:
        os.close(fd)


# Children the zygote keeps forked ahead of the worker's requests. With 2 (a pool worker), while one runs, the next
# has been forked and has done what it can before its request (descriptors, the move into the memory cgroup), off
# the call's critical path; a worker that serves one request (mode spawn) forks 1.
CHILDREN_AHEAD = CONFIG["childrenAhead"]


def zygote(offers, reports):
    """The process every run's child is forked from. It never sees a request or a reply: it forks children ahead and
    hands their descriptors to the worker (on `offers`), reaps each as it ends and reports its end (on `reports`),
    then forks the next. The wait status and CPU time go through a ctypes buffer the kernel fills and that is zeroed
    once sent, so no later child finds them either."""
    run_environment()
    reaped = Reaped()
    status_at, usage_at = ctypes.byref(reaped, Reaped.status.offset), ctypes.byref(reaped, Reaped.usage.offset)
    for _ in range(CHILDREN_AHEAD):
        offer_child(offers)
    while True:
        reaped.pid = LIBC.wait4(-1, status_at, 0, usage_at)
        if reaped.pid < 0:
            raise OSError(ctypes.get_errno(), "wait4")
        reports.sendall(reaped)
        ctypes.memset(ctypes.addressof(reaped), 0, ctypes.sizeof(reaped))
        offer_child(offers)


class Zygote:
    """The worker's side of the zygote: the children it prepared, and the ends of the runs' children it reports.
    Offers and reports travel on separate socket pairs, so that a report is never queued behind an offer."""

    def __init__(self):
        worker = os.getpid()
        self.offers, zygote_offers = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.reports, zygote_reports = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ended = {}  # pid: (wait status, CPU seconds) of children that ended before the worker asked
        self.pid = os.fork()
        if self.pid == 0:
            try:
                # The zygote, and the children it prepared (their request pipes close), die with the worker.
                PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                if os.getppid() == worker:
                    # /dev/null in place of the protocol pipes: their numbers stay taken, so no descriptor the
                    # zygote opens later lands on one of 0 to 4, where a child moves its own.
                    for fd in (PROTO_IN, PROTO_OUT):
                        os.dup2(0, fd)
                    self.offers.close()
                    self.reports.close()
                    zygote(zygote_offers, zygote_reports)
            finally:
                os._exit(0)
        zygote_offers.close()
        zygote_reports.close()

    ENDED = "the zygote (the process the runs' children are forked from) ended"

    def take_child(self):
        """The child prepared for the next request: (pid, stdin_fd, request_w, out_r, err_r, mark_r)."""
        message, fds, _, _ = socket.recv_fds(self.offers, 4, 5)
        if len(message) != 4 or len(fds) != 5:
            raise OSError(self.ENDED)
        return (int.from_bytes(message, "little"), *fds)

    def waiting(self, child):
        """`child` if it still waits for its request, else a replacement, the ended one reaped. A child forked ahead
        may end while it waits: its preparation failed, or the OOM killer took it when the run before it exhausted
        the memory cgroup they share. A few tries; then the request goes to the child as it is (and fails with it)."""
        for _ in range(CHILDREN_AHEAD + 1):
            # Its status channel stays silent until its request comes, unless the child has ended or failed.
            ready, _, _ = select.select([child[5]], [], [], 0)
            if not ready:
                break
            for fd in child[1:]:
                os.close(fd)
            self.reap(child[0])
            child = self.take_child()
        return child

    def receive(self):
        """Reads one report of a child's end (blocking until one comes)."""
        try:
            reply = self.reports.recv(ctypes.sizeof(Reaped))
        except OSError:
            reply = b""
        if len(reply) != ctypes.sizeof(Reaped):
            raise OSError(self.ENDED)
        reaped = Reaped.from_buffer_copy(reply)
        utime_s, utime_us, stime_s, stime_us = reaped.usage[:4]
        self.ended[reaped.pid] = (reaped.status, utime_s + stime_s + (utime_us + stime_us) / 1e6)

    def reap(self, pid):
        """Waits for the run's child to end (the zygote reaps it); returns its wait status and CPU seconds."""
        while pid not in self.ended:
            self.receive()
        return self.ended.pop(pid)

    def close(self, child):
        stop(child[0])
        self.offers.close()
        self.reports.close()
        os.waitpid(self.pid, 0)


def serve():
    """The worker's loop: one request at a time, each run by a child the zygote prepared while the worker waited.
    Returns the worker's exit code: 0 at the end of the requests, 3 after a run that could not be cleaned up after
    or a zygote that died (the worker is then replaced)."""
    zygote = Zygote()
    with os.fdopen(PROTO_IN, "rb", closefd=False) as requests:
        while True:
            try:
                child = zygote.take_child()
            except OSError as error:
                # The host reads this line into the failure of the request it sends next.
                print(error, file=sys.stderr, flush=True)
                return 3
            line = requests.readline()
            if not line:
                zygote.close(child)
                return 0
            req = json.loads(line)
            try:
                reply = execute(req, zygote.waiting(child), zygote)
            except BaseException:
                reply = {"id": req["id"], "workerError": traceback.format_exc()}
            send(reply)
            if not reply.get("clean", False):
                return 3


WORKER_PID_NAMESPACE = os.readlink("/proc/self/ns/pid")
# Everything allocated so far stays put: no collection in a forked process walks (and so copies, at a page fault
# each) the preloaded objects.
gc.freeze()
sys.exit(serve())
