"""Decodes LiveCodeBench's private test cases inside the sandbox, never in the host process.

The release stores each problem's private tests as base64 of zlib of a pickled JSON string (or as plain JSON in
older files). Unpickling runs code chosen by whoever made the file, so it happens here, in the sandbox; only the
JSON it yields leaves, written to private_tests.json and checked to be a list of {input, output, testtype}.
"""

import base64
import json
import pickle
import zlib

with open("private_tests.txt", encoding="utf-8") as handle:
    text = handle.read()
try:
    tests = json.loads(text)
except ValueError:
    tests = json.loads(pickle.loads(zlib.decompress(base64.b64decode(text.encode("utf-8")))))
if not isinstance(tests, list) or not all(
    isinstance(test, dict) and isinstance(test.get("input"), str) and isinstance(test.get("output"), str)
    for test in tests
):
    raise SystemExit("private tests are not a list of {input, output} objects")
with open("private_tests.json", "w", encoding="utf-8") as handle:
    json.dump([{"input": t["input"], "output": t["output"], "testtype": t.get("testtype")} for t in tests], handle)
