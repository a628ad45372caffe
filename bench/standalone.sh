#!/usr/bin/env bash
# Standalone binary (issue #8, point 4): time from start to ready and resident memory at idle.
# Builds `miclub` in release mode, starts it on a fresh data folder (first start: migrations and
# demo seed) and again on the same folder (a restart), polls GET /api/health until it answers,
# then reads VmRSS from /proc after an idle pause.
#
#   bench/standalone.sh                    # 5 runs of each
#   BENCH_RUNS=10 BENCH_IDLE_SECS=5 bench/standalone.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${BENCH_RUNS:-5}"
idle="${BENCH_IDLE_SECS:-3}"
cargo build --release --locked -p miclub-standalone --bin miclub >/dev/null
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release/miclub"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Starts miclub on data folder $1; prints "<ms to ready> <rss KiB at idle>".
measure() {
  local data="$1" port start pid ready rss
  port="$(free_port)"
  start="$(date +%s%N)"
  APP_GATEWAY__PORT="$port" APP_STANDALONE__DATA_DIR="$data" APP_GATEWAY__WEB_DIR=web/dist \
    RUST_LOG=warn "$bin" >/dev/null 2>&1 &
  pid=$!
  until curl -fs "http://127.0.0.1:$port/api/health" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "miclub exited before it was ready" >&2; exit 1; fi
    sleep 0.01
  done
  ready=$(( ($(date +%s%N) - start) / 1000000 ))
  sleep "$idle"
  rss="$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")"
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  echo "$ready $rss"
}

report() {
  python3 -c '
import statistics, sys
what = sys.argv[1]
rows = [tuple(map(int, line.split())) for line in sys.stdin if line.strip()]
ms = sorted(r[0] for r in rows); rss = sorted(r[1] / 1024 for r in rows)
print(f"{what:<22} ready p50 {statistics.median(ms):6.0f} ms  max {ms[-1]:6d} ms   "
      f"idle RSS p50 {statistics.median(rss):6.1f} MiB  max {rss[-1]:6.1f} MiB  ({len(rows)} runs)")
' "$1"
}

for i in $(seq "$runs"); do measure "$work/fresh-$i"; done | report "first start (seeding)"
measure "$work/warm" >/dev/null
for i in $(seq "$runs"); do measure "$work/warm"; done | report "restart"
