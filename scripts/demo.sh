#!/usr/bin/env bash
# Quick start, command 1: set everything up, then run the trainer's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
pnpm --silent start
