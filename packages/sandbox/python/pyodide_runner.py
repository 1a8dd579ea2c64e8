# The Python side of the pyodide backend (pyodide/worker.mjs runs this text, assembled by src/python-programs.ts with
# the cell runner in place of the import below, in the interpreter whose memory snapshot every run starts from).
# Each run is a fresh interpreter from that snapshot, which runs one cell as `python3 main.py` in its home would.
from cell_runner import finish_like_an_interpreter, flush_output, run_code

SCRIPT = "/home/pyodide/main.py"


def taorl_run(code, replay):
    """Runs the replayed cells silently, then the cell; returns the exit code a fresh interpreter would give."""
    exit_code = run_code(code, list(replay), SCRIPT)
    finish_like_an_interpreter()
    flush_output()
    return exit_code
