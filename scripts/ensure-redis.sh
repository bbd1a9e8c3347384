#!/usr/bin/env bash
# Makes sure the Redis the queue tests use answers (REDIS_URL, or this machine's 127.0.0.1:6379).
# Starts a local server without persistence when it is down and we are root; otherwise prints the
# command that starts it and fails.
set -euo pipefail

url="${REDIS_URL:-redis://127.0.0.1:6379}"
start_cmd='redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no'

if ! command -v redis-cli >/dev/null 2>&1; then
  echo "perfjudge: redis-cli not found; assuming Redis is up (queue tests will say if not)" >&2
  exit 0
fi
[ "$(redis-cli -u "$url" ping 2>/dev/null)" = "PONG" ] && exit 0

if [ "$(id -u)" -eq 0 ] && [ "$url" = "redis://127.0.0.1:6379" ] && command -v redis-server >/dev/null 2>&1; then
  echo "perfjudge: Redis is not answering; starting it: $start_cmd" >&2
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir /tmp >/dev/null
  for _ in $(seq 1 20); do
    [ "$(redis-cli -u "$url" ping 2>/dev/null)" = "PONG" ] && exit 0
    sleep 0.5
  done
fi
echo "perfjudge: Redis is not answering at ${url}. Start it with:" >&2
echo "  $start_cmd" >&2
exit 1
