#!/usr/bin/env bash
# The ledger at scale (issue #8, point 3), on PostgreSQL: purchase postings per second through
# the real accounts gRPC service (bench/postings.sh), then the movements query p50/p99 for a
# member with 10 000 movements in a table of 5 000 000 rows that a generator fills
# (bench/movements.sh). Each part keeps its own knobs; see bench/README.md.
#
#   bench/ledger.sh
#   BENCH_ROWS=1000000 bench/ledger.sh      # a smaller movements table
set -euo pipefail
cd "$(dirname "$0")"
echo "== purchase postings per second"
bash ./postings.sh
echo
echo "== movements query at scale"
bash ./movements.sh
