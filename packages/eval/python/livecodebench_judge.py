"""Judges solution.py on every test of tests.json in this one process, as LiveCodeBench's runner does.

LiveCodeBench's published scores come from lcb_runner/evaluation/testing_util.py (run_test), which runs the
program inside the grading process rather than as a program of its own. This judge reproduces its verdicts,
quirks included (docs/explanation/grading.md lists them and why they differ from the `faithful` judges):

- the integer-string digit limit is 50,000 (compute_code_generation_metrics.py raises it before the runner forks);
- the runner disables functions first (its reliability_guard): `quit` and os.kill, os.system, os.remove, ... are
  None, subprocess.Popen too, and ipdb, joblib, resource, psutil and tkinter cannot be imported;
- a standard-input program is parsed; a final `if __name__ == '__main__':` block is unwrapped; its imports stay at
  the top and every other statement becomes the body of one function, run once per test after the prelude, so a
  name the program binds at the top is that function's local (a `global` statement then finds no such name);
- during a test, sys.stdout is a StringIO (output from os.write, sys.stdout.buffer, or atexit is not seen) and
  sys.stdin an object whose read() gives the whole input every time, readline() the next line, readlines() the
  lines without their ends, buffer.readline() always the first line, and which cannot be iterated; `open` is the
  real one (the prelude's star import of builtins binds it), so open(0) reads this process's empty stdin;
- a functional program is the prelude and its text, executed once (`Solution()` made once when the text holds
  "class Solution"); each test calls the method with the JSON arguments and passes when the result, a tuple taken
  as a list, == the expected value by Python's own equality (a numpy scalar equals its value; a numpy array of
  more than one element raises, a runtime error); state left by one test (a mutable default argument) is seen
  by the next;
- each test has `timeout_s` (a SIGALRM); judging stops at the first test that does not pass; SystemExit ends a
  standard-input test normally.

The last line of standard output is the verdict: {"results": [...], "message": ...}, one of "passed",
"wrong_answer", "time_limit", "runtime_error" per test judged. The program shares this process: this judge is for
scores comparable with LiveCodeBench's, never for a reward a policy could learn to game.
"""

import ast
import builtins
import json
import os
import signal
import subprocess
import shutil
import sys
import types
from decimal import Decimal
from io import StringIO
from unittest.mock import mock_open, patch

from judge_prelude import PRELUDE_MODULES

VERDICT_FD = os.dup(1)
exit_process = os._exit


class TestTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise TestTimeout()


def prelude_text():
    """The prelude as program text: star imports of every module, then the modules themselves by name."""
    stars = "".join("from %s import *\n" % name for name in PRELUDE_MODULES)
    named = "".join("import %s\n" % name for name in PRELUDE_MODULES if name not in ("builtins", "typing"))
    return stars + named + "sys.setrecursionlimit(50000)\n"


DISABLED_OS = (
    "kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty", "killpg",
    "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot",
    "lchflags", "lchmod", "lchown", "getcwd", "chdir",
)


def disable_functions():
    builtins.quit = None
    builtins.help = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in DISABLED_OS:
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def unwrap_main_guard(source):
    try:
        body = ast.parse(source).body
        last = body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return ast.unparse(body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return source


def as_function(source):
    """The program's imports, then the rest of its statements as the body of wrapped_function()."""
    try:
        body = ast.parse(source).body
        imports = [node for node in body if isinstance(node, (ast.Import, ast.ImportFrom))]
        rest = [node for node in body if not isinstance(node, (ast.Import, ast.ImportFrom))]
        no_arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        function = ast.FunctionDef(name="wrapped_function", args=no_arguments, body=rest, decorator_list=[],
                                   lineno=-1)
        return prelude_text() + "\n" + ast.unparse(imports) + "\n" + ast.unparse(function)
    except Exception:
        return source


def load(code, timeout_s):
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        module = types.ModuleType("tmp_sol", "")
        exec(code, module.__dict__)
        return module.Solution() if "class Solution" in code else module
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class TestStdin:
    """sys.stdin during a standard-input test: what LiveCodeBench's stand-in answers, method by method."""

    def __init__(self, text):
        self.text = text
        self.lines = StringIO(text)
        self.buffer = TestStdinBuffer(text)

    def read(self, *args):
        return self.text

    def readline(self, *args):
        return self.lines.readline(*args)

    def readlines(self, *args):
        return self.text.split("\n")

    def __getattr__(self, name):
        return getattr(self.lines, name)


class TestStdinBuffer:
    def __init__(self, text):
        self.data = text.encode("utf-8")

    def read(self, *args):
        return self.data

    def readline(self, *args):
        return self.data.split(b"\n")[0] + b"\n"


def run_with_stdin(function, text):
    """Runs function() with the test's input as sys.stdin (and as what builtins.open reads); SystemExit ends it."""
    real_stdin = sys.stdin
    lines = iter(text.split("\n"))
    # The runner patches readline, readlines and read on the stdin in place before it swaps stdin itself.
    with patch.object(real_stdin, "read", lambda *args: text), \
            patch.object(real_stdin, "readlines", lambda *args: text.split("\n")), \
            patch.object(real_stdin, "readline", lambda *args: next(lines)), \
            patch("sys.stdin", TestStdin(text)), \
            patch("builtins.open", mock_open(read_data=text)):
        try:
            function()
        except SystemExit:
            pass


def captured(function, text):
    """What function() prints to sys.stdout, with stdout a StringIO (whose close() takes an argument it never gets)."""
    saved = sys.stdout
    stream = StringIO()
    stream.close = lambda ignored: 1
    sys.stdout = stream
    try:
        run_with_stdin(function, text)
    finally:
        sys.stdout = saved
    return stream.getvalue()


def failure_of(error):
    return ("time_limit" if isinstance(error, TestTimeout) else "runtime_error"), repr(error)[:300]


def stripped_lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def as_decimals(line):
    try:
        return [Decimal(item) for item in line.split()]
    except Exception:
        return None


def stdout_mismatch(actual, expected):
    got, want = stripped_lines(actual), stripped_lines(expected)
    if len(got) != len(want):
        return "%d output lines, expected %d" % (len(got), len(want))
    for index, (a, b) in enumerate(zip(got, want)):
        if a == b:
            continue
        left, right = as_decimals(a), as_decimals(b)
        if left is None or right is None or left != right:
            return "line %d: %r != %r" % (index, a[:80], b[:80])
    return None


def judge_stdio(source, tests):
    program = load(as_function(unwrap_main_guard(source)), tests["timeout_s"])
    function = getattr(program, "wrapped_function", None)
    if function is None:
        return [], "the program did not compile as a function"
    results = []
    for text, expected in zip(tests["inputs"], tests["outputs"]):
        signal.setitimer(signal.ITIMER_REAL, tests["timeout_s"])
        try:
            output = captured(function, text)
        except Exception as error:
            verdict, message = failure_of(error)
            return results + [verdict], message
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        mismatch = stdout_mismatch(output, expected)
        if mismatch is not None:
            return results + ["wrong_answer"], mismatch
        results.append("passed")
    return results, None


def truthy(outcome):
    """Whether LiveCodeBench counts `result == expected` as a pass: a numpy array by its first item, a numpy bool
    as a bool, and then a value above 0."""
    if type(outcome).__name__ == "ndarray":
        outcome = outcome.item(0)
    try:
        return bool(outcome > 0)
    except Exception:
        return False


def judge_functional(source, tests):
    program = load(prelude_text() + "\n\n" + source, tests["timeout_s"])
    method = getattr(program, tests["method"], None)
    if method is None:
        return [], "the program has no %s" % tests["method"]
    arguments = [[json.loads(line) for line in text.split("\n")] for text in tests["inputs"]]
    expected = [json.loads(text) for text in tests["outputs"]]
    results = []
    for args, want in zip(arguments, expected):
        signal.setitimer(signal.ITIMER_REAL, tests["timeout_s"])
        try:
            got = method(*args)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if isinstance(got, tuple):
                got = list(got)
            outcome = got == want
            if not outcome:
                return results + ["wrong_answer"], "returned %s" % repr(got)[:80]
        except Exception as error:
            verdict, message = failure_of(error)
            return results + [verdict], message
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        results.append("passed" if truthy(outcome) else "wrong_answer")
        if results[-1] != "passed":
            return results, "returned %s" % repr(got)[:80]
    return results, None


def main():
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
    with open("tests.json", encoding="utf-8") as handle:
        tests = json.load(handle)
    with open("solution.py", encoding="utf-8") as handle:
        source = handle.read()
    signal.signal(signal.SIGALRM, on_alarm)
    disable_functions()
    try:
        judge = judge_functional if tests["kind"] == "functional" else judge_stdio
        results, message = judge(source, tests)
    except Exception as error:
        # The runner's own catch-all: an error outside a test (compiling, loading) fails the program.
        results, message = [], "error during testing: %s" % repr(error)[:300]
    except BaseException as error:
        # SystemExit outside a standard-input test ends LiveCodeBench's worker process: no result, a failure.
        results, message = [], "the program ended the judge: %s" % repr(error)[:300]
    verdict = json.dumps({"results": results, "message": message})
    os.write(VERDICT_FD, ("\n" + verdict + "\n").encode("utf-8"))
    # No atexit handler and no buffered output of the program may follow the verdict.
    exit_process(0)


main()
