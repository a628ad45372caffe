#!/usr/bin/env bash
# Movements query at scale (issue #4): fills a PostgreSQL database with N movements (default
# 5 000 000 over 50 000 members, one member with 10 000 over ten years), then times the exact
# store query behind GET /api/movements for that member over random months and prints p50/p99
# and the query plan.
#
#   bench/movements.sh                      # PostgreSQL at $BENCH_POSTGRES_URL or 127.0.0.1:5432
#   BENCH_ROWS=500000 bench/movements.sh    # a smaller table
#
# It creates its own database and drops it afterwards (BENCH_KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."
server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export BENCH_POSTGRES_URL="$server"
export BENCH_ROWS="${BENCH_ROWS:-5000000}"
exec cargo run --release --locked -p miclub-accounts --example bench_movements -- "$@"
