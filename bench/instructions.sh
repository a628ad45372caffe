#!/usr/bin/env bash
# Instructions per balance request, counted by valgrind's callgrind inside the server process:
# the portal as deployed (`full`) against its floor (`hop+pg`: the bare REST → gRPC hop plus the
# same PostgreSQL read), the two `bench/gateway.sh` rows issue #20's CPU target compares.
#
# Why beside gateway.sh: on these shared VMs the CPU per request of one binary swings by a third
# between runs (hop+pg 220-310 µs in one sitting), so a change worth 2% cannot be seen there,
# and the VMs expose no hardware counters (`perf stat -e instructions`: not supported). callgrind
# counts the instructions the process executes, the same count for the same binary and requests
# whatever the neighbours do. It sees only the server's user space: not the kernel (about a third
# of the process in perf profiles), not PostgreSQL or Redis, not wrk. So it answers "how much
# work is ours", and an A/B of two builds; CPU and latency stay gateway.sh's.
#
# Each configuration starts under callgrind with instrumentation off, is warmed up, counts
# exactly BENCH_REQUESTS requests from `ab` (keep-alive, BENCH_CONNECTIONS at once) between
# `callgrind_control -i on` and `-i off`, and is stopped. What runs in the background during the
# window (the outbox relay, timers) is counted too: it is the process's work as well.
#
#   bench/instructions.sh
#   BENCH_BIN=/path/to/older/bench_gateway bench/instructions.sh   # the same figures of a build
#   RUST_LOG=off bench/instructions.sh   # without spans: what telemetry costs (a bound, not a setting)
#
# Knobs: BENCH_REQUESTS (default 2000), BENCH_CONNECTIONS (default 10), BENCH_BIN,
# BENCH_POSTGRES_URL, BENCH_REDIS_URL, BENCH_PORT (default 18580), BENCH_TOP (crates listed,
# ordered by what full adds, default 25; 0: none), BENCH_KEEP (keeps the work folder with the callgrind
# files, for callgrind_annotate). Needs valgrind and ab
# (Debian's apache2-utils; installed when missing and the script runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
source bench/lib/release-example.sh
source bench/lib/portal-stores.sh

requests="${BENCH_REQUESTS:-2000}"
connections="${BENCH_CONNECTIONS:-10}"
server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
portal_db_prefix=miclub_bench_instructions
redis="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/15}"
port="${BENCH_PORT:-18580}"
top="${BENCH_TOP:-25}"

command -v valgrind >/dev/null || apt_install valgrind
command -v ab >/dev/null || apt_install apache2-utils

bin="$(release_example miclub-standalone bench_gateway)"

work="$(mktemp -d /tmp/miclub-bench-instructions.XXXXXX)"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  wait 2>/dev/null || true
  drop_portal_databases
  [ -n "${BENCH_KEEP:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

# The server `$@` under callgrind, instrumentation off until the measured window.
start() { # name args…
  local name="$1"
  shift
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$name.callgrind" \
    "$bin" "$@" >"$work/$name.log" 2>"$work/$name.err" &
  pid=$!
}

# Waits for `url` (valgrind starts slowly), warms the path up, then counts `requests` of it.
count() { # name url [ab header args…]
  local name="$1" url="$2"
  shift 2
  for _ in $(seq 1 1200); do
    curl -fs -o /dev/null "$@" "$url" && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.err" >&2; exit 1; }
    sleep 0.25
  done
  ab -q -k -n 500 -c "$connections" "$@" "$url" >/dev/null
  callgrind_control -i on "$pid" >/dev/null
  ab -q -k -n "$requests" -c "$connections" "$@" "$url" >"$work/$name.ab"
  callgrind_control -i off "$pid" >/dev/null
  local failed
  failed="$(awk '/^Failed requests:|^Non-2xx responses:/ { n += $3 } END { print n + 0 }' "$work/$name.ab")"
  if [ "$failed" != 0 ]; then
    echo "$name: $failed requests failed: the figures are not valid" >&2
    exit 1
  fi
  callgrind_control -d "$pid" >/dev/null
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
}

# Instructions per request of a run: the dumps' totals (the last dump holds the window's counts;
# the one at exit only what ran after it) over the requests.
per_request() { # name
  cat "$work/$1".callgrind* | awk -v n="$requests" '/^(summary|totals):/ { s += $2 } END { printf "%.0f", s / n }'
}

fresh_portal_stores

echo "callgrind: $requests requests counted after 500 of warm-up, $connections keep-alive connections (ab)"

BENCH_AUTH_DB="$(portal_db_url auth)" \
  BENCH_ACCOUNTS_DB="$(portal_db_url accounts)" BENCH_REDIS_URL="$redis" \
  start full full "$port" "$work/session"
for _ in $(seq 1 2400); do
  [ -s "$work/session" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/full.err" >&2; exit 1; }
  sleep 0.25
done
count full "http://127.0.0.1:$port/api/balance" -H "Cookie: $(cat "$work/session")"

BENCH_ACCOUNTS_DB="$(portal_db_url accounts)" start hop+pg pg "$((port + 1))"
count hop+pg "http://127.0.0.1:$((port + 1))/api/balance"

full="$(per_request full)"
floor="$(per_request hop+pg)"
echo "instructions per request: full $full, hop+pg $floor; full / hop+pg $(awk -v a="$full" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')×"

# Self instructions per request by crate (from the source path of each function; "std" for the
# standard library, the object for code without debug info such as libc), the two configurations
# side by side: where full's extra work goes.
if [ "$top" != 0 ]; then
  for name in full hop+pg; do
    callgrind_annotate --threshold=100 --auto=no "$(ls -S "$work/$name".callgrind* | head -1)" >"$work/$name.annotated" 2>/dev/null
  done
  echo
  python3 - "$work/full.annotated" "$work/hop+pg.annotated" "$requests" "$top" <<'PY'
import re, sys
from collections import Counter

def crate_of(where):
    """The crate of a function's source path (release builds name the workspace's relatively)."""
    path = where.split(":")[0]
    crate = re.search(r"/index\.crates\.io-[^/]+/([^/]+?)-\d+\.\d+[^/]*/", path)
    if crate:
        return crate.group(1)
    if path.startswith("/rustc/"):
        return "std"
    if "/src/" in path and not path.startswith(("/", ".")):
        head = path.split("/src/")[0]
        return "miclub " + head.rsplit("/", 1)[-1]
    obj = re.search(r"\[([^\]]+)\]\s*$", where)
    if obj and "bench_gateway" not in obj.group(1):
        return obj.group(1).rsplit("/", 1)[-1]
    return "libc and others" if path.startswith(".") else "no source path"

def by_crate(path):
    counts = Counter()
    line_re = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$")
    in_table = False
    for line in open(path):
        if line.startswith("Ir") and "file:function" in line:
            in_table = True
            continue
        m = line_re.match(line) if in_table else None
        if m:
            counts[crate_of(m.group(2))] += int(m.group(1).replace(",", ""))
    return counts

full, floor = by_crate(sys.argv[1]), by_crate(sys.argv[2])
n, top = int(sys.argv[3]), int(sys.argv[4])
rows = sorted(set(full) | set(floor), key=lambda k: -(full[k] - floor[k]))
print(f"-- self instructions per request by crate, ordered by full − hop+pg (top {top})")
print(f"{'crate':<34}{'full':>10}{'hop+pg':>10}{'extra':>10}")
for key in rows[:top]:
    print(f"{key:<34}{full[key] / n:>10.0f}{floor[key] / n:>10.0f}{(full[key] - floor[key]) / n:>10.0f}")
print(f"{'(all)':<34}{sum(full.values()) / n:>10.0f}{sum(floor.values()) / n:>10.0f}{(sum(full.values()) - sum(floor.values())) / n:>10.0f}")
PY
fi
