#!/usr/bin/env bash
# taorl without root, bubblewrap or python3 (issue 49; the README's "Without root" path): a short demo run (a few
# SFT and RL steps, every phase bounded by steps: a few minutes) as uid 65534, in a mount namespace where bubblewrap
# and every python3 executable are hidden. The trainer must give way to the pyodide backend with its one-line
# notice, finish, and run its tool calls there (scripts/no-root-verify.mjs). First, the same run with the fallback
# turned off (isolation: none) must fail for want of python3: it proves that the sandbox's own lookup finds none.
# Run as root (for the namespace) after `pnpm build`; CI runs it after the test suite (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[no-root] %s\n' "$*"; }

if [ "${1:-}" != --inside ]; then
  if [ "$(id -u)" -ne 0 ]; then
    say "run as root: it hides bubblewrap and python3 in a mount namespace of its own, then runs taorl as uid 65534"
    exit 1
  fi
  test -f apps/trainer/dist/cli.js || { say "no apps/trainer/dist/cli.js: run pnpm build first"; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  chmod 755 "$work"
  unshare --mount --propagation private bash "$0" --inside "$work"
  exit
fi

work=$2
# An empty device over each executable, in this namespace only (a symlink's target is what gets covered).
for candidate in /usr/bin/python3* /usr/local/bin/python3* /usr/bin/bwrap /usr/local/bin/bwrap; do
  [ -e "$candidate" ] || continue
  target=$(readlink -f "$candidate")
  [ -f "$target" ] && mount --bind /dev/null "$target"
done
mkdir "$work/bin"
ln -s "$(readlink -f "$(command -v node)")" "$work/bin/node"
chown -R 65534:65534 "$work"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$work" PATH="$work/bin" "$@"; }

as_nobody /bin/sh -c '
  test "$(/usr/bin/id -u)" = 65534 || { echo "[no-root] FAIL not uid 65534"; exit 1; }
  for tool in python3 python bwrap; do
    if command -v "$tool" >/dev/null; then echo "[no-root] FAIL $tool is on PATH"; exit 1; fi
  done
  for path in /usr/bin/python3 /usr/bin/bwrap; do
    if test -x "$path"; then echo "[no-root] FAIL $path is executable"; exit 1; fi
  done'
say "as uid 65534: PATH=$work/bin (node only); no python3, python or bwrap on it; /usr/bin/python3 and /usr/bin/bwrap not executable"

# Short: every phase bounded by steps (the demo preset otherwise), with the demo's own tool settings. Each SFT
# trace is made by running its program in the sandbox, so the traces are few: every pyodide call is an interpreter load.
short=(--set sft.steps=30 --set sft.examples=64 --set rl.steps=2 --set rl.groups=4 --set rl.groupSize=4
  --set demo.moreSftSteps=2 --set demo.greedy=false --set task.testSize=16 --set eval.samples=1)

if as_nobody node apps/trainer/dist/cli.js demo "${short[@]}" --set tool.sandbox.isolation=none \
  -o "$work/control" 2>"$work/control.log" >/dev/null; then
  say "FAIL the run without the fallback (isolation: none) succeeded: python3 is reachable"
  exit 1
fi
grep -q 'pythonPath' "$work/control.log" || {
  say "FAIL the run without the fallback failed, but not for want of python3:"
  cat "$work/control.log"
  exit 1
}
say "without the fallback the run fails: $(grep -m1 'pythonPath' "$work/control.log")"

say "taorl demo, short, as uid 65534"
status=0
as_nobody node apps/trainer/dist/cli.js demo "${short[@]}" -o "$work/run" 2>"$work/stderr.log" || status=$?
cat "$work/stderr.log" >&2
[ "$status" -eq 0 ] || { say "FAIL the run exited with $status"; exit 1; }
node scripts/no-root-verify.mjs "$work/stderr.log" "$work/run/metrics.jsonl"
