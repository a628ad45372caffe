#!/usr/bin/env bash
# The authenticated balance path beside its baselines, on one machine (issue #8, point 1). Each
# configuration runs alone while wrk loads GET /api/balance:
#
#   bare     an axum handler answering the same JSON from memory
#   nginx    nginx (one worker, upstream keep-alive) as a plain reverse proxy in front of bare
#   hop      an axum handler making one tonic call to a gRPC server answering from memory
#   full     the portal as deployed: gateway → accounts, Ana's token checked at both hops
#            (revocation list in Redis), the balance read from PostgreSQL, production's JSON
#            logs (to a file)
#   hop+pg   hop whose gRPC server reads the balance from PostgreSQL through accounts' store
#            (the database full just seeded): the ceiling a per-request read leaves to full
#   uncached full with Redis client-side caching off (APP_EPHEMERAL__CLIENT_CACHE=false)
#
# After the rounds, pgbench (when installed) runs the balance statement alone on the same table,
# prepared: its CPU per query, added to the hop's, caps full / hop whatever the portal does.
#
# A round runs each configuration once, in that order; the figures are medians over rounds
# (with an even count, the lower of the two middle runs), the latencies those of the run with
# the median req/s. Raw req/s swing with the neighbours of a shared VM, so each run also reports
# CPU per request: busy jiffies of the whole machine from /proc/stat (user, nice, system, irq,
# softirq; not idle, iowait or steal) around the measured wrk run, over its requests. It counts
# every process (wrk, the servers, PostgreSQL, Redis, nginx), so keep the machine otherwise
# quiet; the steal seen during each configuration's runs is printed beside it.
#
#   bench/gateway.sh
#   BENCH_ROUNDS=5 BENCH_SECONDS=30 BENCH_CONNECTIONS=100 bench/gateway.sh
#
# Then the full path alone at each connection count of BENCH_GROWTH (default "10 50 200"; empty:
# none), one run each, for the curve of latency against load (issue #20, step 4).
#
# Knobs: BENCH_ROUNDS (default 3), BENCH_SECONDS (each measurement, default 10),
# BENCH_WARMUP_SECONDS (before each measurement, default 3), BENCH_CONNECTIONS (default 50),
# BENCH_WRK_THREADS (default 1), BENCH_POSTGRES_URL (a server where the script may create and
# drop its two databases; default the machine's), BENCH_REDIS_URL (default
# redis://127.0.0.1:6379/15, keys under "bench:"), BENCH_PORT (first of five ports, default
# 18480), BENCH_HOP_CONNECTIONS (gRPC connections of hop and hop+pg, default 1), BENCH_BIN (a
# bench_gateway built earlier, e.g. of the commit before a change, for an A/B). APP_* variables
# reach both portal rows, as in production. Needs wrk and nginx (Debian's packages; installed
# when missing and the script runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
source bench/lib/release-example.sh
source bench/lib/portal-stores.sh

rounds="${BENCH_ROUNDS:-3}"
seconds="${BENCH_SECONDS:-10}"
warmup="${BENCH_WARMUP_SECONDS:-3}"
connections="${BENCH_CONNECTIONS:-50}"
threads="${BENCH_WRK_THREADS:-1}"
server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
portal_db_prefix=miclub_bench_gateway
redis="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/15}"
port="${BENCH_PORT:-18480}"
configs=(bare nginx hop full hop+pg uncached)
growth="${BENCH_GROWTH-10 50 200}"

command -v wrk >/dev/null || apt_install wrk
command -v nginx >/dev/null || apt_install nginx-light

bin="$(release_example miclub-standalone bench_gateway)"
clock_ticks="$(getconf CLK_TCK)"

work="$(mktemp -d /tmp/miclub-bench-gateway.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -f "$work/nginx.pid" ]; then kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; fi
  drop_portal_databases
  rm -rf "$work"
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

# "busy steal total" jiffies of the whole machine so far (first line of /proc/stat: user nice
# system idle iowait irq softirq steal …; guest time is already inside user).
cpu_jiffies() {
  awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8, $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat
}

# One line per measured run: "name round req/s p50_us p99_us cpu_us_per_request busy steal total".
runs="$work/runs"
: >"$runs"
round=0
measure() { # name url [extra wrk args…]
  local name="$1" url="$2"
  shift 2
  wrk -t"$threads" -c"$connections" -d"${warmup}s" "$@" "$url" >/dev/null
  local before after output line
  before="$(cpu_jiffies)"
  output="$(wrk -t"$threads" -c"$connections" -d"${seconds}s" -s "$work/report.lua" "$@" "$url")"
  after="$(cpu_jiffies)"
  line="$(grep '^RESULT' <<<"$output")"
  read -r _ requests duration p50 p99 non2xx errors <<<"$line"
  if [ "$non2xx" != 0 ] || [ "$errors" != 0 ]; then
    echo "$name: $non2xx answers outside 2xx and $errors socket errors: the figures are not valid" >&2
    exit 1
  fi
  local figures
  figures="$(awk -v r="$requests" -v d="$duration" -v p50="$p50" -v p99="$p99" -v hz="$clock_ticks" \
    -v before="$before" -v after="$after" 'BEGIN {
    split(before, b, " "); split(after, a, " ")
    busy = a[1] - b[1]; steal = a[2] - b[2]; total = a[3] - b[3]
    printf "%.0f %d %d %.1f %d %d %d", r / d, p50, p99, busy / hz * 1e6 / r, busy, steal, total
  }')"
  echo "$name $round $figures" >>"$runs"
  read -r rps _ _ cpu _ <<<"$figures"
  echo "round $round: $name $rps req/s, $cpu cpu µs/request"
}

stop() { # pid
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# The portal on fresh databases and a clean Redis prefix; extra arguments are environment
# assignments for it (e.g. APP_EPHEMERAL__CLIENT_CACHE=false).
portal() { # name [VAR=value…]
  local name="$1"
  shift
  fresh_portal_stores
  rm -f "$work/session"
  env "$@" BENCH_AUTH_DB="$(portal_db_url auth)" \
    BENCH_ACCOUNTS_DB="$(portal_db_url accounts)" BENCH_REDIS_URL="$redis" \
    "$bin" full "$((port + 3))" "$work/session" >"$work/$name.log" 2>"$work/$name.err" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 600); do
    [ -s "$work/session" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.err" >&2; exit 1; }
    sleep 0.1
  done
  measure "$name" "http://127.0.0.1:$((port + 3))/api/balance" -H "Cookie: $(cat "$work/session")"
  stop "$pid"
}

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

echo "wrk: $threads thread(s), $connections connections, ${warmup} s warm-up, ${seconds} s measured; $rounds round(s); $(nproc) cores"

log_lines=()
for round in $(seq 1 "$rounds"); do
  # bare, then nginx in front of it
  "$bin" bare "$port" >"$work/bare.log" 2>&1 &
  bare_pid=$!
  pids+=("$bare_pid")
  wait_http "http://127.0.0.1:$port/api/balance"
  measure bare "http://127.0.0.1:$port/api/balance"
  nginx -c "$work/nginx.conf" -e "$work/nginx-error.log" &
  nginx_pid=$!
  pids+=("$nginx_pid")
  wait_http "http://127.0.0.1:$((port + 1))/api/balance"
  measure nginx "http://127.0.0.1:$((port + 1))/api/balance"
  stop "$nginx_pid"
  stop "$bare_pid"

  # one tonic hop
  "$bin" hop "$((port + 2))" >"$work/hop.log" 2>&1 &
  hop_pid=$!
  pids+=("$hop_pid")
  wait_http "http://127.0.0.1:$((port + 2))/api/balance"
  measure hop "http://127.0.0.1:$((port + 2))/api/balance"
  stop "$hop_pid"

  # the portal as deployed
  portal full
  log_lines+=("$(wc -l <"$work/full.log")")

  # the hop plus one balance read, on the accounts database full created and seeded (the next
  # portal run drops it)
  BENCH_ACCOUNTS_DB="$(portal_db_url accounts)" \
    "$bin" pg "$((port + 4))" >"$work/hop+pg.log" 2>&1 &
  pg_pid=$!
  pids+=("$pg_pid")
  wait_http "http://127.0.0.1:$((port + 4))/api/balance"
  measure hop+pg "http://127.0.0.1:$((port + 4))/api/balance"
  stop "$pg_pid"

  # the portal without Redis client-side caching
  portal uncached APP_EPHEMERAL__CLIENT_CACHE=false
done

# The read alone: the balance statement on the same table, prepared, by pgbench (a C client, 8
# connections, one round trip per query), as CPU per query over the whole machine. Added to the
# hop's cost it bounds full / hop from above, whatever the portal itself does.
read_alone=""
if command -v pgbench >/dev/null; then
  accounts_db="$(portal_db_url accounts)"
  member="$(psql -At "$accounts_db" -c "SELECT member_id FROM club_accounts ORDER BY member_id LIMIT 1")"
  echo "SELECT balance, updated_at FROM club_accounts WHERE member_id = '$member';" >"$work/read.sql"
  before="$(cpu_jiffies)"
  queries="$(pgbench -n -M prepared -f "$work/read.sql" -c 8 -j 1 -T "$seconds" "$accounts_db" 2>/dev/null |
    awk '/number of transactions actually processed/ { print $NF }')"
  after="$(cpu_jiffies)"
  read_alone="$(awk -v q="$queries" -v hz="$clock_ticks" -v before="$before" -v after="$after" 'BEGIN {
    split(before, b, " "); split(after, a, " "); printf "%.1f", (a[1] - b[1]) / hz * 1e6 / q }')"
else
  echo "pgbench not found: the read-alone figure is skipped" >&2
fi

# Medians per configuration: req/s (with the latencies of that run) and CPU per request apart.
middle=$(((rounds + 1) / 2))
declare -A rate cost median_of tail_of
echo
printf '%-8s %9s %8s %8s %14s %7s\n' config 'req/s' 'p50 ms' 'p99 ms' 'cpu µs/req' 'steal'
for name in "${configs[@]}"; do
  read -r rps p50 p99 < <(awk -v n="$name" '$1 == n { print $3, $4, $5 }' "$runs" | sort -k1,1n | sed -n "${middle}p")
  cpu="$(awk -v n="$name" '$1 == n { print $6 }' "$runs" | sort -g | sed -n "${middle}p")"
  steal="$(awk -v n="$name" '$1 == n { s += $8; t += $9 } END { printf "%.1f%%", t ? 100 * s / t : 0 }' "$runs")"
  rate[$name]=$rps
  cost[$name]=$cpu
  median_of[$name]=$p50
  tail_of[$name]=$p99
  printf '%-8s %9s %8.2f %8.2f %13s %7s\n' "$name" "$rps" \
    "$(awk -v v="$p50" 'BEGIN{print v/1000}')" "$(awk -v v="$p99" 'BEGIN{print v/1000}')" "$cpu" "$steal"
done
echo
# a/b in req/s, and in CPU as b's cost over a's, so both read the same way (higher is better for a).
ratio() { # a b note
  printf '%-17s %6s %6s%s\n' "$1 / $2" \
    "$(awk -v a="${rate[$1]}" -v b="${rate[$2]}" 'BEGIN{printf "%.0f%%", 100*a/b}')" \
    "$(awk -v a="${cost[$1]}" -v b="${cost[$2]}" 'BEGIN{printf "%.0f%%", 100*b/a}')" "${3:+   $3}"
}
printf '%-17s %6s %6s\n' ratio 'req/s' 'cpu'
ratio full hop+pg "the portal's own work beyond the read; #20 targets: req/s 80% or more, cpu 80% or more (full ≤ 1.25× hop+pg)"
ratio hop+pg hop "the ceiling a per-request PostgreSQL read leaves"
ratio full hop ""
ratio full nginx ""
ratio uncached full "Redis client-side caching off"
ratio hop bare ""
ratio nginx bare ""
echo
# The latency targets of #20, from the median runs above.
echo "p99: full / hop+pg $(awk -v a="${tail_of[full]}" -v b="${tail_of[hop+pg]}" 'BEGIN{printf "%.2f×", a/b}') (target ≤ 1.5×);" \
  "hop p99 / p50 $(awk -v a="${tail_of[hop]}" -v b="${median_of[hop]}" 'BEGIN{printf "%.1f×", a/b}') (target ≤ 3×)"
if [ -n "$read_alone" ]; then
  echo "the balance read alone (pgbench, prepared): $read_alone cpu µs/query; inside hop+pg the read costs" \
    "$(awk -v p="${cost[hop+pg]}" -v h="${cost[hop]}" 'BEGIN{printf "%.1f", p-h}') µs (hop+pg − hop)," \
    "$(awk -v p="${cost[hop+pg]}" -v h="${cost[hop]}" -v r="$read_alone" 'BEGIN{printf "%.2f×", (p-h)/r}') pgbench's (target ≤ 1.3×)"
fi
echo "log lines written by the portal during each full run: ${log_lines[*]}"

# Growth: the full path alone at each load of BENCH_GROWTH (one run each, after the rounds), so
# the curve of latency against load is visible.
if [ -n "$growth" ]; then
  echo
  printf '%-12s %9s %8s %8s %14s\n' 'full at' 'req/s' 'p50 ms' 'p99 ms' 'cpu µs/req'
  base_connections="$connections"
  for connections in $growth; do
    round="c$connections"
    portal full
    read -r rps p50 p99 cpu < <(awk -v r="$round" '$1 == "full" && $2 == r { print $3, $4, $5, $6 }' "$runs")
    printf '%-12s %9s %8.2f %8.2f %14s\n' "$connections conns" "$rps" \
      "$(awk -v v="$p50" 'BEGIN{print v/1000}')" "$(awk -v v="$p99" 'BEGIN{print v/1000}')" "$cpu"
  done
  connections="$base_connections"
fi
