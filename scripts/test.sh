#!/usr/bin/env bash
# Quick start, command 2: set everything up, then run every test: the suite against the packages' sources,
# the composed trainer's suite against the built packages, and the packaging checks on the build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
pnpm --silent test
pnpm --silent test:dist
pnpm --silent test:packaging
