"""Calls one method of solution.py with JSON arguments and prints its result as JSON (LeetCode-style tests).

As LiveCodeBench's grade_call_based: the prelude of stdio_judge.py, `Solution().<method>` when the program
defines `class Solution` (else a top-level function), one JSON argument per line of standard input, and a tuple
result taken as a list. What the program prints goes to standard error, so standard output holds only the
result. A numpy scalar is taken as its Python value (LiveCodeBench's `==` finds them equal). A value JSON cannot
carry as Python would compare it (a nested tuple, a set, a dict with non-string keys, a numpy array) is written as
an object no expected output equals, because Python would not call it equal either.
"""

import json
import sys

from judge_prelude import prelude_namespace, raise_int_digit_limit


def comparable(value):
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: comparable(item) for key, item in value.items()}
    return {"__not_json__": type(value).__name__, "repr": repr(value)[:200]}


def main():
    sys.setrecursionlimit(50000)
    raise_int_digit_limit()
    with open("judge.json", encoding="utf-8") as handle:
        method_name = json.load(handle)["method"]
    with open("solution.py", encoding="utf-8") as handle:
        source = handle.read()
    arguments = [json.loads(line) for line in sys.stdin.read().split("\n")]
    result_stream = sys.stdout
    sys.stdout = sys.stderr
    namespace = prelude_namespace()
    exec(compile(source, "solution.py", "exec"), namespace)
    owner = namespace["Solution"]() if "class Solution" in source else None
    method = getattr(owner, method_name) if owner is not None else namespace[method_name]
    result = method(*arguments)
    if isinstance(result, tuple):
        result = list(result)
    sys.stdout = result_stream
    sys.stdout.write(json.dumps(comparable(result)))


main()
