#!/usr/bin/env bash
# A rolling restart of accounts under steady load, on the distributed topology (the six
# binaries configured from the rendered k8s dev overlay, on the machine's PostgreSQL and Redis):
# four clients read the balance through the gateway and two store systems post purchases
# through accounts' Service while accounts is replaced as its Deployment's rolling update does.
# Prints the restart's duration, the reads (a failed one fails the run), the postings
# acknowledged, the attempts retried and the postings stored (each exactly once); then the same
# with accounts stopped and started in place (one replica, no surge), whose failed reads are
# counted, not refused: the figure behind the manifests' maxUnavailable: 0. ROLLING_RESTART_SECONDS
# (default 30) is the load before and after the restart; the test command runs the same test
# with 3.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
export ROLLING_RESTART_SECONDS="${ROLLING_RESTART_SECONDS:-30}"
export MICLUB_DISTRIBUTED_REQUIRED=1
[ -f tools/mailcatcher/node_modules/maildev/package.json ] \
  || (cd tools/mailcatcher && npm ci --no-audit --no-fund)
cargo build --release --locked -p miclub-gateway -p miclub-auth -p miclub-accounts \
  -p miclub-missions -p miclub-content -p miclub-registration
cargo test --release --locked -p miclub-distributed --test rolling_restart -- --nocapture \
  --include-ignored --test-threads 1 2>&1 \
  | grep -E "restart of accounts|test result|panicked"
