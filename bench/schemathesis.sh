#!/usr/bin/env bash
# Bad input at scale (issue #8, point 6): schemathesis generates requests from the gateway's own
# OpenAPI document (/api/openapi.json) and checks that no answer is a 5xx and every answer fits
# the schema. Runs twice against the standalone binary: anonymous, then as Ana with a session
# (logout, unsubscribe and password change are left out so the session survives the run).
#
#   bench/schemathesis.sh                     # 25 examples per operation and phase
#   BENCH_EXAMPLES=100 bench/schemathesis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${BENCH_EXAMPLES:-25}"
target="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
venv="$target/schemathesis-venv"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r tools/schemathesis/requirements.txt
fi
cargo build --release --locked -p miclub-standalone --bin miclub >/dev/null
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
APP_GATEWAY__PORT="$port" APP_STANDALONE__DATA_DIR="$work/data" APP_GATEWAY__WEB_DIR="$work/none" \
  APP_GATEWAY__LOGIN_REQUESTS_PER_MINUTE=1000000 RUST_LOG=warn "$target/release/miclub" >"$work/miclub.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"
until curl -fs "$base/api/health" >/dev/null; do sleep 0.1; done

run() {
  "$venv/bin/schemathesis" run "$base/api/openapi.json" \
    -H "x-miclub-csrf: 1" -H "recaptcha-token: schemathesis" "$@" \
    --checks not_a_server_error,response_schema_conformance \
    --max-examples "$examples" --workers 2
}

# Ana's session is opened first: the anonymous phase sends wrong passwords and recovery
# requests for well-formed RUTs, which could lock her out or fill her mailbox before the
# session phase reads her code.
jar="$work/cookies"
curl -fs -c "$jar" -b "$jar" -H 'content-type: application/json' -H 'x-miclub-csrf: 1' \
  -H 'recaptcha-token: t' -d '{"user":"11.111.111-1","password":"MiClub2026!"}' "$base/api/login" >/dev/null
code="$(curl -fs "$base/api/dev/mailbox" | python3 -c \
  'import json,sys; print(next(m["code"] for m in json.load(sys.stdin) if m["to"]=="ana@example.cl"))')"
token="$(curl -fs -c "$jar" -b "$jar" -H 'content-type: application/json' -H 'x-miclub-csrf: 1' \
  -d "{\"otp\":\"$code\"}" "$base/api/validate-otp" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"

echo "== anonymous"
run

echo "== as Ana, with a session"
run -H "Authorization: Bearer $token" \
  --exclude-path /api/logout --exclude-path /api/unsubscribe --exclude-path /api/profile/password
