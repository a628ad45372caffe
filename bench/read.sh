#!/usr/bin/env bash
# The balance read alone through each way the portal could reach PostgreSQL, beside pgbench
# (issue #20, step 1): client and server CPU per query, counted per process, so the Any driver's,
# the tracing wrapper's and the pool's shares can be told apart. One connection, serial queries,
# on a scratch database of the local server (created here, dropped on exit).
#
#   bench/read.sh
#   BENCH_SECONDS=10 BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres bench/read.sh
set -euo pipefail
cd "$(dirname "$0")/.."
server="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
db=miclub_bench_read
drop() { psql -q "$server" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; }
trap drop EXIT
drop
psql -q "$server" -c "CREATE DATABASE $db" >/dev/null
BENCH_ACCOUNTS_DB="${server%/*}/$db" \
  cargo run --release --locked -q -p miclub-standalone --example bench_read
