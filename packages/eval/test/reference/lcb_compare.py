"""An independent reference for taorl's output comparison: LiveCodeBench's rules computed with Python's own types.

Written from the rules of lcb_runner/evaluation/testing_util.py (grade_stdio and grade_call_based), not from
taorl's code: str.strip and str.split, decimal.Decimal equality, and == on json.loads values. Reads
{"stdout": [[actual, expected], ...], "json": [[actual, expected], ...]} on stdin, prints the verdicts as JSON.
"""

import json
import sys
from decimal import Decimal


def stripped_lines(text):
    return [line.strip() for line in text.strip().split("\n")]


def as_decimals(line):
    try:
        return [Decimal(token) for token in line.split()]
    except Exception:
        return None


def stdout_equal(actual, expected):
    got, want = stripped_lines(actual), stripped_lines(expected)
    if len(got) != len(want):
        return False
    for left, right in zip(got, want):
        if left == right:
            continue
        left_decimals, right_decimals = as_decimals(left), as_decimals(right)
        if left_decimals is None or right_decimals is None:
            return False
        try:
            if left_decimals != right_decimals:
                return False
        except Exception:
            return False
    return True


pairs = json.load(sys.stdin)
json.dump(
    {
        "stdout": [stdout_equal(actual, expected) for actual, expected in pairs["stdout"]],
        "json": [json.loads(actual) == json.loads(expected) for actual, expected in pairs["json"]],
    },
    sys.stdout,
)
