#!/usr/bin/env bash
# Login throughput against the raw argon2id rate, and balance latency while clients log in
# versus idle (issue #8, point 2): password hashing must not starve other requests. Runs the
# standalone portal in process (SQLite, in-memory stores, demo seed) with the login limits
# raised, so hashing is what is measured.
#
#   bench/login.sh                                      # 50 clients for 10 s
#   BENCH_LOGIN_CLIENTS=100 BENCH_SECONDS=20 bench/login.sh
#
# Other knobs: BENCH_IDLE_SECONDS (idle balance probe, default 5), BENCH_RAW_SECONDS (each raw
# argon2id measurement, default 2), and any `APP_*` setting, e.g. APP_AUTH__HASHING__NICE=0 to
# hash at the portal's own priority.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release --locked -p miclub-standalone --example bench_login -- "$@"
