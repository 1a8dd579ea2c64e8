#!/usr/bin/env bash
# Copies the records of an experiment's finished runs (metrics, configs, evaluations, completion markers) from a runs
# folder into the repository, without checkpoints, policies, logs or locks, so finished runs outlive the machine that
# ran them. A run is finished when its folder holds done.json; the folder's own top-level records (ablation.json)
# are copied too. Each finished policy is replaced by the sha256 of its files (policy.sha256): a policy trained again
# from the same seed can be checked against the one the archived runs started from. Re-running updates the copy.
# Given a relative runs folder, absolute paths in the records (run arguments, configs) through a folder named as its
# first component (runs/) are written from there on, so no path of this machine lands in the repository: the runs
# folder's own, and another checkout's that shares it (a follow-up's, whose start is copied from the main runs).
#
#   bash scripts/archive-run-records.sh <runs folder> <destination>
#   bash scripts/archive-run-records.sh runs/preconditions-lucky0 docs/results/preconditions-runs/preconditions-lucky0
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: archive-run-records.sh <runs folder> <destination>" >&2
  exit 2
fi
source_dir=${1%/}
[ -d "$source_dir" ] || { echo "archive-run-records: no folder $source_dir" >&2; exit 1; }
destination=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$source_dir"
export GIVEN_ROOT=${source_dir%%/*}

records() { find "$@" \( -name checkpoints -o -name policy \) -prune -o -type f \( -name '*.json' -o -name '*.jsonl' \) -print; }
mapfile -t finished < <(find . -name done.json -printf '%h\n')
{
  records . -maxdepth 1
  for run in "${finished[@]}"; do records "$run"; done
} | sort -u | while read -r file; do
  mkdir -p "$destination/$(dirname "$file")"
  if [ -n "$GIVEN_ROOT" ]; then
    perl -pe 's{(?<![\w.~-])/(?:[^/"\s]+/)*?\Q$ENV{GIVEN_ROOT}\E/}{$ENV{GIVEN_ROOT}/}g' "$file" > "$destination/$file"
  else
    cp "$file" "$destination/$file"
  fi
done
for run in "${finished[@]}"; do
  [ -d "$run/policy" ] || continue
  mkdir -p "$destination/$run"
  (cd "$run/policy" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$destination/$run/policy.sha256"
done
