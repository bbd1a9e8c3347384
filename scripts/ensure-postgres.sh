#!/usr/bin/env bash
# Makes sure the PostgreSQL the database tests use is accepting connections (DATABASE_URL, or this
# machine's 127.0.0.1:5432). Starts the local cluster when it is down and we are root; otherwise
# prints the command that starts it and fails.
set -euo pipefail

url="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
url="${url%%\?*}" # libpq does not know Prisma's ?schema=
start_cmd='pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'

if ! command -v pg_isready >/dev/null 2>&1; then
  echo "perfjudge: pg_isready not found; assuming PostgreSQL is up (database tests will say if not)" >&2
  exit 0
fi
pg_isready -q -d "$url" && exit 0

if [ "$(id -u)" -eq 0 ] && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  echo "perfjudge: PostgreSQL is not accepting connections; starting it: $start_cmd" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do
    pg_isready -q -d "$url" && exit 0
    sleep 1
  done
fi
echo "perfjudge: PostgreSQL is not accepting connections at ${url}. Start it with:" >&2
echo "  $start_cmd" >&2
exit 1
