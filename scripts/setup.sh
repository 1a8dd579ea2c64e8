#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine with Node 20 and npm: the Debian packages the sandbox and the
# grader need, pnpm, the workspace's dependencies, and the build. Says what it installs; skips what is present.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=12.4.2
# chromium: the HTML report is checked in a real browser, and the portable entries run in one
# (test/browser-smoke.test.ts); playwright-core drives Debian's build.
# python3-requests: a sandbox test runs verl's SandboxFusion client with Debian's python3 against taorl-sandbox serve.
# python3-pytest: taorl-sandbox serve runs SandboxFusion's `language: pytest` with it (a sandbox test does).
# pyflakes3: a sandbox test lints the package's Python (packages/sandbox/python) with it.
DEBIAN_PACKAGES=(bubblewrap python3-sympy python3-numpy python3-requests python3-pytest pyflakes3 chromium)

say() { printf '[setup] %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; exit 1
  fi
}

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "Debian packages present: ${DEBIAN_PACKAGES[*]}"
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  say "installing pnpm@$PNPM_VERSION with npm (corepack fails on registry signatures here)"
  npm install --global --silent "pnpm@$PNPM_VERSION"
else
  say "pnpm $PNPM_VERSION present"
fi

say "installing workspace dependencies (pnpm install --frozen-lockfile)"
pnpm install --frozen-lockfile --reporter=append-only | grep -Ev '^(Progress|$)' || true
test -d node_modules/.pnpm || { say "pnpm install failed"; exit 1; }

say "building all packages (turbo run build)"
TURBO_TELEMETRY_DISABLED=1 pnpm --silent build --output-logs=errors-only
say "done"
