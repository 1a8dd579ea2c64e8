#!/usr/bin/env bash
# Copies the records of an experiment's runs (metrics, configs, evaluations, completion markers) from a runs folder
# into the repository, without checkpoints, policies, logs or locks, so finished runs outlive the machine that ran
# them. Each policy folder is replaced by the sha256 of its files (policy.sha256): a policy trained again from the
# same seed can be checked against the one the archived runs started from. Re-running updates the copy.
#
#   bash scripts/archive-run-records.sh <runs folder> <destination>
#   bash scripts/archive-run-records.sh runs/preconditions-lucky0 docs/results/preconditions-runs/preconditions-lucky0
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: archive-run-records.sh <runs folder> <destination>" >&2
  exit 2
fi
source_dir=${1%/}
destination=${2%/}
[ -d "$source_dir" ] || { echo "archive-run-records: no folder $source_dir" >&2; exit 1; }

destination=$(mkdir -p "$destination" && cd "$destination" && pwd)
cd "$source_dir"
find . \( -name checkpoints -o -name policy \) -prune -o -type f \
  \( -name '*.json' -o -name '*.jsonl' \) -print |
  while read -r file; do
    mkdir -p "$destination/$(dirname "$file")"
    cp -p "$file" "$destination/$file"
  done
find . -type d -name policy -print | while read -r policy; do
  # The SFT writes its policy before its done.json; only a finished run's policy is the one its evaluations used.
  [ -f "$(dirname "$policy")/done.json" ] || continue
  mkdir -p "$destination/$(dirname "$policy")"
  (cd "$policy" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$destination/$(dirname "$policy")/policy.sha256"
done
