#!/usr/bin/env bash
# The test command (`npm test`): installs what the tests need when it is missing, then runs
# type checks, lint and every unit and integration test against real tools.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh

# npm dependencies: install from the lock file when missing or older than the lock.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# The Prisma client is generated, not committed (tsc needs it); database and queue tests need
# PostgreSQL and Redis (this kind of machine starts both; the scripts start them when they are down).
bash scripts/db-generate.sh >/dev/null
bash scripts/ensure-postgres.sh
bash scripts/ensure-redis.sh

# Two type-check projects: Next.js's types make NODE_ENV a required variable of every child
# environment, which the runner's spawn calls need not carry (tsconfig.node.json leaves the web out).
npx tsc --noEmit -p tsconfig.node.json
npx tsc --noEmit -p tsconfig.json
npx eslint .
# The direction of imports between our folders, and docs/layers.md drawn from them (dependency-cruiser).
bash scripts/layers.sh --check
npx prettier --check . >/dev/null || { npx prettier --check .; exit 1; }
npx vitest run "$@"
# Browser tests: Debian's Chromium against the built app with a real scorer and runners (playwright.config.ts).
npx playwright test
