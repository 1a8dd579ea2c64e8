# The cell runner both backends share: the local worker's child (worker.py) and the program the SandboxFusion
# backend submits (sandboxfusion_program.py) run a cell with it, so a cell's traceback reads the same from either
# (File "<cell>", line N, with its source line). Those programs are sent to Python as one text, so they do not import
# this module: src/python-programs.ts puts this file's text in place of their `from cell_runner import` line.
import linecache
import os
import sys
import traceback


def exit_code_of(system_exit):
    code = system_exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_cell(source, name, namespace):
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


def cell_frames(tb):
    """The traceback from the first frame of the user's code on, as a fresh interpreter would print it."""
    while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
        tb = tb.tb_next
    return tb


def run_code(code, replay):
    """Runs the replayed cells silently, then the cell; returns the exit code a fresh interpreter would give."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        if replay:
            saved = os.dup(1), os.dup(2)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            for index, cell in enumerate(replay):
                try:
                    run_cell(cell, "<replay %d>" % index, namespace)
                except BaseException:
                    pass  # a cell that fails (or exits) on replay does not stop the new one
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (quiet,) + saved:
                os.close(fd)
        run_cell(code, "<cell>", namespace)
        return 0
    except SystemExit as stop:
        return exit_code_of(stop)
    except BaseException as error:
        try:
            traceback.print_exception(type(error), error, cell_frames(error.__traceback__))
        except BaseException:
            os.write(2, b"\n" + type(error).__name__.encode() + b"\n")
        return 1


def run_code_and_exit(code, replay, before_exit=None):
    """The end of a run's process on both backends: run_code, stdout and stderr flushed (os._exit skips Python's own
    flush; a flush that fails, on a closed pipe, changes nothing), before_exit() if given, then os._exit with the exit
    code a fresh interpreter would give, whatever happens (never back into the caller's code)."""
    exit_code = 1
    try:
        exit_code = run_code(code, replay)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
    finally:
        try:
            if before_exit is not None:
                before_exit()
        finally:
            os._exit(exit_code)
