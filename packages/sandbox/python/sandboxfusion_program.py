# The program the SandboxFusion backend submits for a cell (src/remote/bounded-program.ts appends the call
# `main(forward_bytes, request)`; src/python-programs.ts puts the cell runner in place of the `from cell_runner
# import` line). SandboxFusion stops reading a run's pipes past about 128 KiB of output, and the run then hangs until
# its timeout; so the program bounds its own output. Before the cell runs, it moves the cell's stdout and stderr onto
# pipes of its own, read by a pump process that forwards at most `forward_bytes` of each stream to the real ones and
# drains the rest, and that kills the cell's process once a stream reaches that (as the local backend stops a run at
# the cap; processes the cell started end with the server's own cleanup). The cell (and a session's earlier cells,
# replayed silently) run through the local backend's cell runner, so tracebacks read `File "<cell>", line N` on both
# backends.
import base64, json, os, select, signal, sys, time
from cell_runner import run_code_and_exit

PUMP_WAIT_S = 2


def pump(targets, cell_pid, forward_bytes):
    """Copies each pipe to its target descriptor up to forward_bytes, then discards the rest until end-of-file."""
    sent = dict.fromkeys(targets, 0)
    stopped = False
    while targets:
        ready, _, _ = select.select(list(targets), [], [])
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                os.close(fd)
                del targets[fd]
                continue
            data = chunk[:max(forward_bytes - sent[fd], 0)]
            sent[fd] += len(chunk)
            while data:
                data = data[os.write(targets[fd], data):]
            if sent[fd] >= forward_bytes and not stopped:
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


def main(forward_bytes, request_base64):
    """Runs the request ({"code": the cell, "replay": the session's earlier cells}, JSON in base64) with its output
    bounded to forward_bytes a stream; ends the process."""
    request = json.loads(base64.b64decode(request_base64).decode("utf-8"))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    cell_pid = os.getpid()
    pump_pid = os.fork()
    if pump_pid == 0:
        os.close(out_w)
        os.close(err_w)
        os.close(0)
        try:
            pump({out_r: 1, err_r: 2}, cell_pid, forward_bytes)
        finally:
            os._exit(0)
    os.close(out_r)
    os.close(err_r)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.close(out_w)
    os.close(err_w)
    # As in the local backend: a run stopped at a limit still shows what it printed before.
    sys.stdout.reconfigure(line_buffering=True)
    sys.stderr.reconfigure(line_buffering=True)
    # SandboxFusion runs this program as a script: the cell is that script's code (__file__, sys.argv, __main__).
    script = globals().get("__file__")
    run_code_and_exit(request["code"], request["replay"], lambda: wait_for_pump(pump_pid),
                      script and os.path.abspath(script))
