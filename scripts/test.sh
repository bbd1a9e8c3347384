#!/usr/bin/env bash
# The test command (`npm test`): installs what the tests need when it is missing, then runs the
# type checks, lint and every unit, integration and browser test against real tools.
#
# `npm test -- --tier NAME` runs one tier (docs/CONTRIBUTING.md has each one's time):
#   unit         the pure unit tests (tests/unit): no database, Redis, compiler or sandbox
#   static       type checks, lint and formatting
#   integration  the vitest integration tests (tests/integration): compilers, sandbox, stores
#   e2e          the browser tests (tests/e2e, Playwright in Debian's Chromium)
#   all          everything (the default, and what CI runs): static and unit, then integration
#                and e2e side by side
# Anything after the tier goes to vitest (unit, integration, all) or Playwright (e2e), e.g.
# `npm test -- --tier integration tests/integration/judge.test.ts`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase's end, in seconds since npm test began: where CI's minutes go (docs/CONTRIBUTING.md).
began=$SECONDS
phase() { echo "npm test: $1 ($((SECONDS - began)) s since the start)"; }

tier=all
if [ "${1:-}" = "--tier" ]; then
  tier="${2:-}"
  shift 2 || shift 1
fi
case "$tier" in
  unit | static | integration | e2e | all) ;;
  *)
    echo "npm test: --tier takes unit, static, integration, e2e or all (got '${tier}')" >&2
    exit 2
    ;;
esac

# System packages (compilers, sandbox, profilers, Wine) for the tiers that run real tools.
case "$tier" in integration | e2e | all) bash scripts/install-system-deps.sh ;; esac

# npm dependencies: installed from the lock file when missing or older than the lock; the Prisma
# client is generated, not committed (tsc and the database code need it).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
bash scripts/db-generate.sh >/dev/null
phase 'installed'

# The quick local loop: nothing else to install or start.
if [ "$tier" = unit ]; then
  exec npx vitest run --project unit "$@"
fi

# Runs its arguments (each one command line) at once and fails if any of them failed.
together() {
  local pids=() failed=0
  for command in "$@"; do
    bash -c "$command" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  return "$failed"
}

# Each tool uses one core: the two type-check projects run side by side (Next.js's types make
# NODE_ENV a required variable of every child environment, which the runner's spawn calls need not
# carry, so tsconfig.node.json leaves the web out).
type_checks() {
  together 'npx tsc --noEmit -p tsconfig.node.json' 'npx tsc --noEmit -p tsconfig.json'
}
lint() {
  npx eslint .
  npx prettier --check . >/dev/null || { npx prettier --check .; return 1; }
  # The direction of imports between our folders, and docs/layers.md drawn from them (dependency-cruiser).
  bash scripts/layers.sh --check
  # Unused files, exports and dependencies (knip.ts).
  npx knip --no-progress --no-config-hints
}

if [ "$tier" = static ]; then
  type_checks
  lint
  exit 0
fi

# Database and queue tests need PostgreSQL and Redis (this kind of machine starts both; the scripts
# start them when they are down).
bash scripts/ensure-postgres.sh
bash scripts/ensure-redis.sh

if [ "$tier" = integration ]; then
  exec npx vitest run --project 'integration*' "$@"
fi
if [ "$tier" = e2e ]; then
  exec npx playwright test "$@"
fi

# Everything. The web app's production build (tests/helpers/web-build.ts: one for the browser
# tests and the integration tests that serve it) takes minutes of CPU, so it is made on the core
# the single-threaded linters and the unit tests leave free, after the type checks (it writes
# next-env.d.ts, which the web project's type check reads).
type_checks
phase 'type checks done'
build_log="$(mktemp)"
e2e_log="$(mktemp)"
trap 'rm -f "$build_log" "$e2e_log"' EXIT
npx tsx tests/helpers/web-build.ts >"$build_log" 2>&1 &
build=$!
lint
phase 'lint done'
npx vitest run --project unit --passWithNoTests "$@"
phase 'unit tests done'
wait "$build" || { cat "$build_log"; exit 1; }
cat "$build_log"
phase 'web build done'
# The integration tier (two files at a time, the slowest first: vitest.config.ts) and the browser
# tests (Debian's Chromium against the built app with a real scorer and runners: playwright.config.ts)
# side by side: much of either is waiting (judgings queued behind a host lock, lock expiries, a
# reconciler's period, a browser waiting for a verdict), which the other fills. Their tests judge
# on a loaded host by design (busy pairs fall back to a labelled CPU-time estimate; they check
# verdicts, not timings), each with its own host lock, schema and queue prefix. The browser
# tests' output follows the integration tier's.
npx playwright test >"$e2e_log" 2>&1 &
e2e=$!
failed=0
npx vitest run --project 'integration*' --passWithNoTests "$@" || failed=1
phase 'integration tier done'
wait "$e2e" || failed=1
phase 'browser tier done'
echo "--- browser tests (npx playwright test), run beside the integration tier"
cat "$e2e_log"
exit "$failed"
