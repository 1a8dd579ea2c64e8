"""Runs solution.py as a contest judge runs a standard-input program, after LiveCodeBench's prelude.

LiveCodeBench treats SystemExit as a normal end of the program; so does this. One fresh process per test, reading
the test's input from real standard input.
"""

import sys

from judge_prelude import prelude_namespace, raise_int_digit_limit


def main():
    sys.setrecursionlimit(50000)
    raise_int_digit_limit()
    with open("solution.py", encoding="utf-8") as handle:
        source = handle.read()
    program = compile(source, "solution.py", "exec")
    try:
        exec(program, prelude_namespace())
    except SystemExit:
        pass
    sys.stdout.flush()


main()
