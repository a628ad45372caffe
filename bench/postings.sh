#!/usr/bin/env bash
# Purchase postings per second (issue #4): runs the real accounts gRPC service on PostgreSQL
# and posts purchases concurrently with a service token, each with its own idempotency key;
# prints postings/s, latency and the machine's CPU time per posting.
#
#   bench/postings.sh                                   # PostgreSQL at $BENCH_POSTGRES_URL or 127.0.0.1:5432
#   BENCH_POSTINGS=20000 BENCH_CONCURRENCY=64 bench/postings.sh
#   BENCH_BIN=/tmp/bench_postings_before bench/postings.sh   # a build of another commit, for an A/B
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_POSTGRES_URL="${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
if [ -n "${BENCH_BIN:-}" ]; then
  exec "$BENCH_BIN" "$@"
fi
exec cargo run --release --locked -p miclub-accounts --example bench_postings -- "$@"
