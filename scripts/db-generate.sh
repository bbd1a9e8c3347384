#!/usr/bin/env bash
# Generates the Prisma client into lib/server/db/generated (gitignored) from prisma/schema.prisma.
# `prisma generate` only needs the WebAssembly parts shipped in the npm package, but the CLI first
# makes sure the native schema engine is present and downloads it from Prisma's binary host when it
# is not, which fails offline. Pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips that
# check; generate never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$(type -P true)}" \
  npx prisma generate --no-hints "$@"
