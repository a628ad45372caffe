#!/usr/bin/env bash
# The authenticated balance path beside three baselines, in one run on one machine (issue #8,
# point 1). Each configuration runs alone while wrk loads GET /api/balance:
#
#   bare   an axum handler answering the same JSON from memory
#   nginx  nginx (one worker, upstream keep-alive) as a plain reverse proxy in front of bare
#   hop    an axum handler making one tonic call to a gRPC server answering from memory
#   full   the portal: gateway → accounts, Ana's token checked at both hops (revocation list
#          in Redis), the balance read from PostgreSQL, production's JSON logs (to a file)
#   cached the same with ephemeral.client_cache on (Redis client-side caching; off by default)
#
#   bench/gateway.sh
#   BENCH_SECONDS=30 BENCH_CONNECTIONS=100 bench/gateway.sh
#
# Knobs: BENCH_SECONDS (each measurement, default 10), BENCH_WARMUP_SECONDS (default 3),
# BENCH_CONNECTIONS (default 50), BENCH_WRK_THREADS (default 1), BENCH_POSTGRES_URL (a server
# where the script may create and drop its two databases; default the machine's),
# BENCH_REDIS_URL (default redis://127.0.0.1:6379/15, keys under "bench:"), BENCH_PORT (first
# of four ports, default 18480). Needs wrk and nginx (Debian's packages; installed when
# missing and the script runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh

seconds="${BENCH_SECONDS:-10}"
warmup="${BENCH_WARMUP_SECONDS:-3}"
connections="${BENCH_CONNECTIONS:-50}"
threads="${BENCH_WRK_THREADS:-1}"
server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
redis="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/15}"
port="${BENCH_PORT:-18480}"

command -v wrk >/dev/null || apt_install wrk
command -v nginx >/dev/null || apt_install nginx-light

cargo build --release --locked -q -p miclub-standalone --example bench_gateway
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bin="$target/release/examples/bench_gateway"

work="$(mktemp -d /tmp/miclub-bench-gateway.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  drop_databases
  rm -rf "$work"
}
db_url() { echo "${server%/*}/$1"; }
drop_databases() {
  for db in miclub_bench_gateway_auth miclub_bench_gateway_accounts; do
    psql -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT

wait_http() { # url
  for _ in $(seq 1 600); do
    curl -fs -o /dev/null "$@" && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}

# wrk prints "requests seconds p50_us p99_us non2xx socket_errors" through this script.
cat > "$work/report.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %.3f %d %d %d %d\n", summary.requests,
    summary.duration / 1e6, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout))
end
LUA

results=()
measure() { # name url [extra wrk args…]
  local name="$1" url="$2"
  shift 2
  wrk -t"$threads" -c"$connections" -d"${warmup}s" "$@" "$url" >/dev/null
  local line
  line="$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$work/report.lua" "$@" "$url" | grep '^RESULT')"
  read -r _ requests duration p50 p99 non2xx errors <<<"$line"
  if [ "$non2xx" != 0 ] || [ "$errors" != 0 ]; then
    echo "$name: $non2xx answers outside 2xx and $errors socket errors: the figures are not valid" >&2
    exit 1
  fi
  results+=("$name $(awk -v r="$requests" -v d="$duration" 'BEGIN{printf "%.0f", r/d}') $p50 $p99")
  echo "measured $name"
}

stop() { # pid
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

echo "wrk: $threads thread(s), $connections connections, ${warmup} s warm-up, ${seconds} s measured; $(nproc) cores"

# bare
"$bin" bare "$port" >"$work/bare.log" 2>&1 &
bare_pid=$!
pids+=("$bare_pid")
wait_http "http://127.0.0.1:$port/api/balance"
measure bare "http://127.0.0.1:$port/api/balance"

# nginx in front of bare
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/client_body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  upstream bare {
    server 127.0.0.1:$port;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$((port + 1));
    location / {
      proxy_pass http://bare;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
NGINX
nginx -c "$work/nginx.conf" -e "$work/nginx-error.log" &
pids+=($!)
wait_http "http://127.0.0.1:$((port + 1))/api/balance"
measure nginx "http://127.0.0.1:$((port + 1))/api/balance"
kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
stop "$bare_pid"

# one tonic hop
"$bin" hop "$((port + 2))" >"$work/hop.log" 2>&1 &
hop_pid=$!
pids+=("$hop_pid")
wait_http "http://127.0.0.1:$((port + 2))/api/balance"
measure hop "http://127.0.0.1:$((port + 2))/api/balance"
stop "$hop_pid"

# the portal, as deployed (name full) and with ephemeral.client_cache on (name cached)
portal() { # name client_cache
  drop_databases
  for db in miclub_bench_gateway_auth miclub_bench_gateway_accounts; do
    psql -q "$server" -c "CREATE DATABASE $db" >/dev/null
  done
  redis-cli -u "$redis" --scan --pattern 'bench:*' | xargs -r redis-cli -u "$redis" del >/dev/null
  rm -f "$work/session"
  BENCH_AUTH_DB="$(db_url miclub_bench_gateway_auth)" \
  BENCH_ACCOUNTS_DB="$(db_url miclub_bench_gateway_accounts)" \
  BENCH_REDIS_URL="$redis" BENCH_REDIS_CLIENT_CACHE="$2" \
    "$bin" full "$((port + 3))" "$work/session" >"$work/$1.log" 2>"$work/$1.err" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 600); do
    [ -s "$work/session" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$1.err" >&2; exit 1; }
    sleep 0.1
  done
  measure "$1" "http://127.0.0.1:$((port + 3))/api/balance" -H "Cookie: $(cat "$work/session")"
  stop "$pid"
}
portal full 0
log_lines=$(wc -l <"$work/full.log")
portal cached 1

echo
printf '%-6s %10s %9s %9s\n' config 'req/s' 'p50 ms' 'p99 ms'
declare -A rate
for line in "${results[@]}"; do
  read -r name rps p50 p99 <<<"$line"
  rate[$name]=$rps
  printf '%-6s %10s %9.2f %9.2f\n' "$name" "$rps" "$(awk -v v="$p50" 'BEGIN{print v/1000}')" "$(awk -v v="$p99" 'BEGIN{print v/1000}')"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.0f%%", 100*a/b}'; }
echo "full / hop   $(ratio "${rate[full]}" "${rate[hop]}")   (target: 60% or more)"
echo "full / nginx $(ratio "${rate[full]}" "${rate[nginx]}")   (target: past 40%)"
echo "cached / hop $(ratio "${rate[cached]}" "${rate[hop]}")   (ephemeral.client_cache on: off by default, see the README)"
echo "hop / bare   $(ratio "${rate[hop]}" "${rate[bare]}")"
echo "nginx / bare $(ratio "${rate[nginx]}" "${rate[bare]}")"
echo "log lines written by the portal during the run: $log_lines"
