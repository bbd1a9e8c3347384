#!/usr/bin/env bash
# Prints the SQL of the next migration: the difference between an earlier prisma/schema.prisma
# (default: the last committed one) and the working copy's. Save it as
# prisma/migrations/<yyyymmddhhmmss>_<name>/migration.sql.
#
# Why not `prisma migrate dev`: Prisma 7's migrate commands need its native schema engine, which the
# CLI downloads from Prisma's binary host and which machines without internet cannot fetch. Prisma
# 6.19's CLI carries the same engine compiled to WebAssembly (its `engine: 'js'` mode); it is
# installed from the npm registry into .data/ (not a project dependency). It diffs two schema files;
# it connects to the local PostgreSQL (DATABASE_URL, or 127.0.0.1:5432/test) but changes nothing.
#
# Usage: scripts/db-diff.sh [--from-empty | --from FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
tool="$repo/.data/prisma6-diff-tool"
version=6.19.0

from=git
case "${1:-}" in
  --from-empty) from=empty ;;
  --from) from="${2:?--from needs a file}" ;;
  '') ;;
  *) echo "usage: $0 [--from-empty | --from FILE]" >&2; exit 2 ;;
esac

if [ ! -x "$tool/node_modules/.bin/prisma" ]; then
  mkdir -p "$tool"
  echo '{ "name": "prisma6-diff-tool", "private": true, "type": "module" }' >"$tool/package.json"
  (cd "$tool" && npm install --no-audit --no-fund --silent -E "prisma@$version" "@prisma/adapter-pg@$version" >&2)
fi

# Prisma 6 wants a url in the datasource block; nothing connects to it.
with_url() {
  sed 's|^\(\s*provider\s*=\s*"postgresql"\)|\1\n  url = "postgresql://localhost/unused"|' "$1"
}
with_url prisma/schema.prisma >"$tool/to.prisma"
case "$from" in
  empty) from_args=(--from-empty) ;;
  git)
    git show HEAD:prisma/schema.prisma >"$tool/from-raw.prisma"
    with_url "$tool/from-raw.prisma" >"$tool/from.prisma"
    from_args=(--from-schema-datamodel "$tool/from.prisma")
    ;;
  *)
    with_url "$from" >"$tool/from.prisma"
    from_args=(--from-schema-datamodel "$tool/from.prisma")
    ;;
esac

cat >"$tool/prisma.config.ts" <<'TS'
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'to.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DIFF_DATABASE_URL }),
});
TS

# The engine paths only satisfy the CLI's start-up check; the WebAssembly engine does the work.
url="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
cd "$tool"
DIFF_DATABASE_URL="${url%%\?*}" PRISMA_QUERY_ENGINE_LIBRARY="$tool/package.json" PRISMA_SCHEMA_ENGINE_BINARY="$tool/package.json" \
  npx prisma migrate diff "${from_args[@]}" --to-schema-datamodel to.prisma --script 2> >(grep -v '^Loaded Prisma config' >&2)
