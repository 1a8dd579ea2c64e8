"""The cell runner's parts, run with the python3 the sandbox uses (test/python.test.ts runs this file).

Whatever writes to file descriptors 1 and 2 or ends its process runs in a child interpreter, whose output and exit
status are then checked as a fresh `python3 -c` would give them."""
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYTHON_DIR)

import cell_runner  # noqa: E402 (after the path it is found on)


def run_in_child(program):
    """Runs `program` (with the cell runner importable) in a child interpreter: (exit status, stdout, stderr)."""
    child = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r)\n%s" % (PYTHON_DIR, program)],
                           capture_output=True, text=True, timeout=60)
    return child.returncode, child.stdout, child.stderr


def fresh_interpreter(code):
    """What `python3 -c code` gives: (exit status, stdout, stderr)."""
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return child.returncode, child.stdout, child.stderr


class ExitCodeOf(unittest.TestCase):
    def test_matches_a_fresh_interpreter(self):
        for argument in ["", "0", "3", "256 + 7", "-1", "None", "'bye'"]:
            with self.subTest(argument=argument):
                expected_code, _, expected_err = fresh_interpreter("raise SystemExit(%s)" % argument)
                stderr = io.StringIO()
                with redirect_stderr(stderr):
                    code = cell_runner.exit_code_of(eval("SystemExit(%s)" % argument))
                self.assertEqual(code, expected_code)
                self.assertEqual(stderr.getvalue(), expected_err)


class CellFrames(unittest.TestCase):
    def test_drops_the_frames_before_the_cell(self):
        namespace = {}
        try:
            cell_runner.run_cell("def f():\n    return 1 / 0\nf()\n", "<cell>", namespace)
        except ZeroDivisionError as error:
            tb = cell_runner.cell_frames(error.__traceback__)
        names = []
        while tb is not None:
            names.append((tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_name))
            tb = tb.tb_next
        self.assertEqual(names, [("<cell>", "<module>"), ("<cell>", "f")])

    def test_is_none_when_the_error_is_not_the_cells(self):
        try:
            cell_runner.run_cell("x = (", "<cell>", {})
        except SyntaxError as error:
            self.assertIsNone(cell_runner.cell_frames(error.__traceback__))


class RunCode(unittest.TestCase):
    def test_a_traceback_starts_at_the_cell_and_shows_its_lines(self):
        cell = "x = 1\nraise ValueError('no %d' % x)\n"
        code, out, err = run_in_child("import cell_runner\nprint(cell_runner.run_code(%r, []))" % cell)
        self.assertEqual((code, out), (0, "1\n"))
        self.assertEqual(err, 'Traceback (most recent call last):\n  File "<cell>", line 2, in <module>\n'
                              "    raise ValueError('no %d' % x)\nValueError: no 1\n")

    def test_a_traceback_reads_as_python3_prints_it_for_a_file(self):
        # Each has a "Did you mean" suggestion: in a chained error, after a note, on an attribute, without a newline.
        cells = ["value = 1\nprint(valeu)", "value = 1\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    print(valeu)\n",
                 "class Point:\n    name = 1\nPoint().nme\n", "import math\nmath.sqr(2)\n", "prnt(1)\n",
                 "value = 1\ntry:\n    valeu\nexcept NameError as error:\n    error.add_note('a note')\n    raise\n"]
        with tempfile.TemporaryDirectory() as folder:
            script = os.path.join(folder, "cell.py")
            for cell in cells:
                with self.subTest(cell=cell):
                    with open(script, "w") as file:
                        file.write(cell)
                    expected = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60)
                    self.assertIn("Did you mean", expected.stderr)
                    _, _, err = run_in_child("import cell_runner\ncell_runner.run_code(%r, [])" % cell)
                    self.assertEqual(err, expected.stderr.replace('File "%s"' % script, 'File "<cell>"'))

    def test_replayed_cells_are_silent_and_leave_their_names(self):
        replay = ["print('old'); a = 20", "import sys; print('err', file=sys.stderr); b = 1 / 0", "raise SystemExit(4)"]
        program = "import cell_runner\nc = cell_runner.run_code(%r, %r)\nprint('code', c)" % ("print(a + 22)", replay)
        self.assertEqual(run_in_child(program), (0, "42\ncode 0\n", ""))

    def test_system_exit_gives_the_exit_code(self):
        code, out, _ = run_in_child("import cell_runner\nprint(cell_runner.run_code('import sys; sys.exit(300)', []))")
        self.assertEqual((code, out), (0, "44\n"))


class RunCodeAndExit(unittest.TestCase):
    def test_flushes_runs_the_hook_and_exits_with_the_cells_code(self):
        program = ("import cell_runner, os\n"
                   "def hook():\n    os.write(2, b'hook\\n')\n"
                   "cell_runner.run_code_and_exit(%r, [], hook)\n"
                   "print('never here')") % "print('partial', end=''); raise SystemExit(5)"
        self.assertEqual(run_in_child(program), (5, "partial", "hook\n"))

    def test_exits_when_the_hook_fails(self):
        program = ("import cell_runner\n"
                   "def hook():\n    raise RuntimeError('hook')\n"
                   "cell_runner.run_code_and_exit('pass', [], hook)\n")
        code, out, err = run_in_child(program)
        self.assertEqual((code, out), (0, ""))
        self.assertNotIn("never", err)

    def test_ends_as_an_interpreter_does_at_exit(self):
        # Non-daemon threads joined, then atexit handlers, before the exit code of the cell.
        cell = ("import atexit, threading, time\n"
                "atexit.register(lambda: print('atexit'))\n"
                "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n"
                "raise SystemExit(3)")
        self.assertEqual(run_in_child("import cell_runner\ncell_runner.run_code_and_exit(%r, [])" % cell),
                         (3, "thread\natexit\n", ""))
        self.assertEqual(fresh_interpreter(cell), (3, "thread\natexit\n", ""))

    def test_exits_when_the_cell_replaced_os_exit(self):
        cell = "import os, sys\nos._exit = None\nsys.exit = None\nprint('hello')"
        program = "import cell_runner\ncell_runner.run_code_and_exit(%r, [])\nprint('never here')" % cell
        self.assertEqual(run_in_child(program), (0, "hello\n", ""))


class MainNamespace(unittest.TestCase):
    def test_is_a_fresh_main_module_of_the_script(self):
        program = ("import cell_runner, sys\n"
                   "cell_runner.run_code_and_exit(%r, [], script='/scratch/main.py')") % (
                       "import pickle, sys\n"
                       "def f():\n    pass\n"
                       "print(__file__, sys.argv, sys.path[0], pickle.loads(pickle.dumps(f)) is f)")
        self.assertEqual(run_in_child(program), (0, "/scratch/main.py ['/scratch/main.py'] /scratch True\n", ""))


if __name__ == "__main__":
    unittest.main()
