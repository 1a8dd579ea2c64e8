# The program the SandboxFusion backend submits for a cell (src/remote/bounded-program.ts appends the call
# `main(limits, request)`; src/python-programs.ts puts the cell runner in place of the `from cell_runner import`
# line). SandboxFusion stops reading a run's pipes past about 128 KiB of output, and the run then hangs until its
# timeout; so the program bounds its own output. Before the cell runs, it moves the cell's stdout and stderr onto
# pipes of its own, read by a pump process that forwards at most `pipe_bytes` of each stream to the real ones, writes
# at most `keep_bytes` of each to a file the client fetches (fetch_files: the whole output up to the local backend's
# cap, past the server's pipe limit), drains the rest, and kills the cell's process once a stream reaches
# `keep_bytes` (as the local backend stops a run at the cap; processes the cell started end with the server's own
# cleanup). The cell's address space is limited to `memory_bytes` (RLIMIT_AS, as the local backend does), so memory
# runs out as a MemoryError whatever way the server enforces memory_limit_MB. The cell (and a session's earlier
# cells, replayed silently) run through the local backend's cell runner, so tracebacks read `File "<cell>", line N`
# on both backends.
import base64, json, os, resource, select, signal, sys, time
from cell_runner import run_code_and_exit

PUMP_WAIT_S = 2


def pump(streams, cell_pid, pipe_bytes, keep_bytes):
    """Copies each pipe (fd -> (target fd, file fd)) to its target up to pipe_bytes and to its file up to keep_bytes,
    then discards the rest until end-of-file."""
    sent = dict.fromkeys(streams, 0)
    stopped = False
    while streams:
        ready, _, _ = select.select(list(streams), [], [])
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                os.close(fd)
                del streams[fd]
                continue
            target, copy = streams[fd]
            for out, limit in ((target, pipe_bytes), (copy, keep_bytes)):
                data = chunk[:max(limit - sent[fd], 0)]
                while data:
                    data = data[os.write(out, data):]
            sent[fd] += len(chunk)
            if sent[fd] >= keep_bytes and not stopped:
                stopped = True  # once: afterwards the pid may belong to another process
                try:
                    os.kill(cell_pid, signal.SIGKILL)
                except OSError:
                    pass


def wait_for_pump(pump_pid):
    """The server kills what is left of the run once this process exits, the pump included: wait until the pump has
    forwarded the end of the output (it stops at end-of-file, once no process holds the pipes), but not longer than
    PUMP_WAIT_S, as a process the cell left running may hold them."""
    os.close(1)
    os.close(2)
    deadline = time.monotonic() + PUMP_WAIT_S
    while os.waitpid(pump_pid, os.WNOHANG)[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.002)


def limit_memory(memory_bytes):
    """RLIMIT_AS at memory_bytes, or at the server's own limit where that is lower."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(limits, request_base64):
    """Runs the request ({"code": the cell, "replay": the session's earlier cells}, JSON in base64) within limits
    ({"pipe_bytes", "keep_bytes", "memory_bytes", "stdout_file", "stderr_file"}); ends the process."""
    request = json.loads(base64.b64decode(request_base64).decode("utf-8"))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    copies = [os.open(limits[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
              for name in ("stdout_file", "stderr_file")]
    cell_pid = os.getpid()
    pump_pid = os.fork()
    if pump_pid == 0:
        os.close(out_w)
        os.close(err_w)
        os.close(0)
        try:
            pump({out_r: (1, copies[0]), err_r: (2, copies[1])}, cell_pid, limits["pipe_bytes"],
                 limits["keep_bytes"])
        finally:
            os._exit(0)
    for fd in [out_r, err_r] + copies:
        os.close(fd)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.close(out_w)
    os.close(err_w)
    limit_memory(limits["memory_bytes"])
    # As in the local backend: a run stopped at a limit still shows what it printed before.
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)
    # SandboxFusion runs this program as a script: the cell is that script's code (__file__, sys.argv, __main__).
    script = globals().get("__file__")
    run_code_and_exit(request["code"], request["replay"], lambda: wait_for_pump(pump_pid),
                      script and os.path.abspath(script))
