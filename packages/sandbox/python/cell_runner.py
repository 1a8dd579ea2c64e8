# The cell runner both backends share: the local worker's child (worker.py) and the program the SandboxFusion
# backend submits (sandboxfusion_program.py) run a cell with it, so a cell's traceback reads the same from either
# (File "<cell>", line N, with its source line). Those programs are sent to Python as one text, so they do not import
# this module: src/python-programs.ts puts this file's text in place of their `from cell_runner import` line.
import io
import linecache
import os
import re
import sys
import traceback
import types
# The code may replace what it likes in os, sys, threading or atexit (SandboxFusion's anti-hack header sets
# os._exit = None): what the runner calls after the code has run is bound here, before any code runs.
from atexit import _run_exitfuncs as run_atexit_handlers
from os import _exit as exit_process, close as close_fd, dup, dup2, write as write_fd
from sys import __excepthook__ as interpreter_excepthook
from threading import _shutdown as join_non_daemon_threads


def exit_code_of(system_exit):
    code = system_exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_cell(source, name, namespace):
    # Lines as Python's line cache reads them from a file, the last one ending with a newline too: without it, the
    # traceback module of Python 3.11 places its markers one column right of what `python3 file.py` prints.
    lines = source.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    linecache.cache[name] = (len(source), None, lines, name)
    exec(compile(source, name, "exec"), namespace)


def cell_frames(tb):
    """The traceback from the first frame of the user's code on, as a fresh interpreter would print it."""
    while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
        tb = tb.tb_next
    return tb


def print_traceback(error):
    """Prints the error's traceback as `python3 file.py` would. Python 3.11's traceback module leaves out the
    "Did you mean" suggestion its interpreter adds to a NameError or AttributeError (3.12 moved it into the module):
    it is taken from the interpreter's own excepthook, printed into a buffer."""
    lines = traceback.format_exception(type(error), error, cell_frames(error.__traceback__))
    if isinstance(error, (NameError, AttributeError)):
        message = traceback.format_exception_only(type(error), error)[0]
        if message in lines:
            index = len(lines) - 1 - lines[::-1].index(message)
            lines[index] = message[:-1] + interpreter_suggestion(error, message[:-1]) + "\n"
    sys.stderr.write("".join(lines))


def interpreter_suggestion(error, message):
    """The text the interpreter's excepthook writes right after `message` (the error's last line), when it is a
    suggestion; "" where there is none or the traceback module already gave it."""
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        interpreter_excepthook(type(error), error, error.__traceback__)
        printed = sys.stderr.getvalue()
    finally:
        sys.stderr = saved
    found = re.findall(re.escape(message) + r"(\. Did you mean: .*\?)\n", printed)
    return found[-1] if found else ""


def main_namespace(script):
    """The globals of a fresh `python3 script`: a new __main__ module (so that pickle, and so multiprocessing, finds
    the code's functions and classes by name), with __file__, sys.argv and sys.path[0] as a script run sets them.
    Without a script, __file__ stays undefined and sys.argv and sys.path as they are."""
    module = types.ModuleType("__main__")
    module.__builtins__ = __builtins__
    if script is not None:
        module.__file__ = script
        sys.argv[:] = [script]
        if sys.path[:1] != [os.path.dirname(script)]:
            sys.path.insert(0, os.path.dirname(script))
    sys.modules["__main__"] = module
    return module.__dict__


def run_code(code, replay, script=None):
    """Runs the replayed cells silently, then the cell, as the script `script` (see main_namespace); returns the
    exit code a fresh interpreter would give."""
    namespace = main_namespace(script)
    try:
        if replay:
            saved = dup(1), dup(2)
            quiet = os.open(os.devnull, os.O_WRONLY)
            dup2(quiet, 1)
            dup2(quiet, 2)
            for index, cell in enumerate(replay):
                try:
                    run_cell(cell, "<replay %d>" % index, namespace)
                except BaseException:
                    pass  # a cell that fails (or exits) on replay does not stop the new one
            flush_output()
            dup2(saved[0], 1)
            dup2(saved[1], 2)
            for fd in (quiet,) + saved:
                close_fd(fd)
        run_cell(code, "<cell>", namespace)
        return 0
    except SystemExit as stop:
        return exit_code_of(stop)
    except BaseException as error:
        try:
            print_traceback(error)
        except BaseException:
            write_fd(2, b"\n" + type(error).__name__.encode() + b"\n")
        return 1


def flush_output():
    """Flushes sys.stdout and sys.stderr; a flush that fails (a closed pipe, streams the code replaced) changes
    nothing."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def finish_like_an_interpreter():
    """What a fresh interpreter does at exit before it flushes its output: it waits for the non-daemon threads
    (threading's own exit hooks first, through which concurrent.futures waits for the tasks it was given), then
    runs the atexit handlers, printing (not raising) what fails in them."""
    try:
        join_non_daemon_threads()
    except BaseException:
        pass
    try:
        run_atexit_handlers()
    except BaseException:
        pass


def run_code_and_exit(code, replay, before_exit=None, script=None):
    """The end of a run's process on both backends: run_code, the interpreter's exit steps (threads joined, atexit
    handlers), stdout and stderr flushed (os._exit skips Python's own flush), before_exit() if given, then
    os._exit with the exit code a fresh interpreter would give, whatever happens (never back into the caller's
    code)."""
    exit_code = 1
    try:
        exit_code = run_code(code, replay, script)
        finish_like_an_interpreter()
        flush_output()
    finally:
        try:
            if before_exit is not None:
                before_exit()
        finally:
            exit_process(exit_code)
