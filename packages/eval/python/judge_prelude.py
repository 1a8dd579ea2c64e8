"""LiveCodeBench's execution prelude: the standard modules a judged program may use without importing them.

lcb_runner/evaluation/testing_util.py runs every program after star-importing these modules (in this order, then
binding each module's own name) and raising the recursion limit to 50,000; the process it runs in converts
integers of up to 50,000 digits to and from text (Python's default stops at 4,300). The judges include this file's text
in place of their `from judge_prelude import` line, so each is one self-contained program.
"""

import builtins
import importlib
import sys

PRELUDE_MODULES = (
    "string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
    "statistics", "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing",
)


def prelude_namespace():
    namespace = {"__name__": "__main__", "__file__": "solution.py", "__builtins__": builtins}
    modules = [importlib.import_module(name) for name in PRELUDE_MODULES]
    for module in modules:
        public = getattr(module, "__all__", None)
        if public is None:
            public = [name for name in dir(module) if not name.startswith("_")]
        namespace.update({name: getattr(module, name) for name in public if hasattr(module, name)})
    namespace.update({name: module for name, module in zip(PRELUDE_MODULES, modules)})
    return namespace


def raise_int_digit_limit():
    """Integers of up to 50,000 digits convert to and from text, as in LiveCodeBench's grading process (its tests
    hold such numbers; Python 3.11 and later stop at 4,300 by default)."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(50000)
