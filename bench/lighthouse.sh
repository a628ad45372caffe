#!/usr/bin/env bash
# Lighthouse (issue #19, item 6): mobile emulation on /login, /mi-club (as Ana), /promociones,
# /alianzas and /registro, against the standalone binary on its own SQLite data folder, in
# Debian's Chromium (CHROME_PATH, headless, --no-sandbox). Lighthouse is pinned in
# bench/lighthouse/package-lock.json and installed there with `npm ci` (not in web/). Prints
# performance, accessibility, best practices, SEO, CLS and LCP per route, then the audits that
# did not pass. A bench, not a test: it exits 0 whatever the scores.
#
#   bench/lighthouse.sh             # release build, 3 runs per route
#   bench/lighthouse.sh debug       # the debug build (say so with the figures)
#   BENCH_RUNS=1 BENCH_REPORT_DIR=/tmp/lh bench/lighthouse.sh debug
#   BENCH_CPU=calibrated bench/lighthouse.sh   # CPU slowdown calibrated to this host (run.mjs)
#   BENCH_NO_WEB_BUILD=1 BENCH_WEB_DIR=/tmp/other-dist bench/lighthouse.sh debug   # another build
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-release}"
case "$profile" in
  release) cargo build --release --locked -p miclub-standalone --bin miclub >/dev/null ;;
  debug) cargo build --locked -p miclub-standalone --bin miclub >/dev/null ;;
  *) echo "usage: bench/lighthouse.sh [release|debug]" >&2; exit 2 ;;
esac
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/$profile/miclub"
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"

# `npm ci` when the install is missing or older than its lock file.
install() {
  if [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}
install bench/lighthouse
build_log="$(mktemp)"
if [ "${BENCH_NO_WEB_BUILD:-}" != 1 ]; then
  install web
  # Quiet when it works; the compiler's own errors when it does not.
  (cd web && npm run build >"$build_log" 2>&1) || { cat "$build_log" >&2; exit 1; }
fi

work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
APP_GATEWAY__PORT="$port" APP_STANDALONE__DATA_DIR="$work/data" APP_GATEWAY__WEB_DIR="${BENCH_WEB_DIR:-$PWD/web/dist}" \
  RUST_LOG=warn "$bin" >"$work/miclub.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"
until curl -fs "$base/api/health" >/dev/null; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/miclub.log" >&2; exit 1; }
  sleep 0.1
done

echo "miclub: $profile build ($bin), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
node bench/lighthouse/run.mjs "$base" || echo "lighthouse run failed (exit $?)" >&2
