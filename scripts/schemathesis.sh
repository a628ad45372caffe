#!/usr/bin/env bash
# Schemathesis against the standalone binary (issue #18, item 4): requests generated from the
# gateway's own OpenAPI document (/api/openapi.json) — its examples, the edges of every schema,
# random and schema-breaking input, and the flows its links chain (tools/schemathesis/hooks.py)
# — must never get a 5xx, every answer must be a documented status with the documented content
# type, headers and schema, and every rejection the JSON error body. Part of scripts/test; it
# builds nothing: it runs the debug binary the test command already built.
#
# Two runs on one portal: anonymous (every operation), then as Ana with a session (every
# operation but logout, which would end the session the run depends on), so the member routes
# are exercised past their 401.
#
#   scripts/schemathesis.sh                              # after cargo build -p miclub-standalone
#   MICLUB_BIN=/path/to/miclub scripts/schemathesis.sh
#   SCHEMATHESIS_EXAMPLES=200 SCHEMATHESIS_SEED=7 scripts/schemathesis.sh
#   scripts/schemathesis.sh --include-path /api/movements  # arguments go to both runs
set -euo pipefail
cd "$(dirname "$0")/.."
extra=("$@")

examples="${SCHEMATHESIS_EXAMPLES:-100}"
seed="${SCHEMATHESIS_SEED:-18}"
target="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
bin="${MICLUB_BIN:-$target/debug/miclub}"
[ -x "$bin" ] || { echo "no miclub binary at $bin: run cargo build -p miclub-standalone first" >&2; exit 1; }

# Schemathesis from the pinned requirements, in a venv under the target folder, made again when
# the requirements or the Python change.
requirements=tools/schemathesis/requirements.txt
venv="$target/schemathesis-venv"
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  # Debian's python3 makes venvs only with python3-venv.
  apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv
fi
stamp="$(python3 --version) $(sha256sum "$requirements" | cut -d' ' -f1)"
if [ "$(cat "$venv/.miclub-stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "installing schemathesis into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  echo "$stamp" >"$venv/.miclub-stamp"
fi

work="$(mktemp -d)"
pid=""
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop EXIT
# Hypothesis keeps its caches (among them constants it draws from) in the run's folder, not in
# the work tree, so every run starts from the same state.
export HYPOTHESIS_STORAGE_DIRECTORY="$work/hypothesis"

# The portal as the flow tests start it (standalone/tests/flow/portal.rs): a free port, a fresh
# data folder, no web app and no configuration folder, so the code's development defaults
# apply, with the password change on as in development.toml. A port picked here can be taken
# before the binary binds it: then it exits, and it is started again on another.
#
# The limits per client address are raised, those per account are not. Every request here
# comes from 127.0.0.1, so with the defaults (the gateway's 30 logins, 10 recoveries and 10
# registrations a minute; auth's 20 password attempts and registration's 20 starts per address
# in 15 minutes) about half of the requests to those operations answer 429 before the services
# read them (93% of the logins in the session run), and which ones would depend on the clock,
# not the seed. The per-account limits (codes, resends, wrong passwords, recoveries of one
# user) still answer 429 on the demo member's flows; gateway/tests/api/edge_limits.rs and the
# services' tests test the address limits themselves.
start_portal() {
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  base="http://127.0.0.1:$port"
  rm -rf "$work/data"
  APP_GATEWAY__PORT="$port" \
    APP_STANDALONE__DATA_DIR="$work/data" \
    APP_GATEWAY__WEB_DIR="$work/no-web" \
    APP_CONFIG_DIR="$work/no-config" \
    APP_GATEWAY__FLAGS__CHANGE_PASSWORD_ENABLE=true \
    APP_GATEWAY__LOGIN_REQUESTS_PER_MINUTE=1000000 \
    APP_GATEWAY__RECOVERY_REQUESTS_PER_MINUTE=1000000 \
    APP_GATEWAY__REGISTRATION_REQUESTS_PER_MINUTE=1000000 \
    APP_AUTH__POLICY__IP_ATTEMPTS=1000000 \
    APP_AUTH__POLICY__IP_FAILURES=1000000 \
    APP_AUTH__POLICY__IP_RECOVERIES=1000000 \
    APP_REGISTRATION__START_ATTEMPTS=1000000 \
    RUST_LOG=warn "$bin" >"$work/miclub.log" 2>&1 &
  pid=$!
  local deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/health")" = "200" ] && return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; pid=""; return 1; }
    sleep 0.1
  done
  echo "the portal did not answer GET /api/health with 200 within 60 s" >&2
  cat "$work/miclub.log" >&2
  exit 1
}
started=""
for _attempt in 1 2 3; do
  if start_portal; then started=1; break; fi
  echo "the portal exited before it was ready; starting it again" >&2
done
[ -n "$started" ] || { cat "$work/miclub.log" >&2; exit 1; }

# Ana's session, opened before the anonymous run, whose wrong passwords and recovery requests
# could otherwise lock her out or fill her mailbox first: the password step, the code from the
# development mailbox, the code step.
api() { curl -fsS -H 'content-type: application/json' -H 'x-miclub-csrf: 1' -b "$work/jar" -c "$work/jar" "$@"; }
api -H 'recaptcha-token: schemathesis' -d '{"user":"11.111.111-1","password":"MiClub2026!"}' \
  "$base/api/login" >/dev/null
code="$(curl -fsS "$base/api/dev/mailbox" | python3 -c \
  'import json, sys; print(next(m["code"] for m in json.load(sys.stdin) if m["to"] == "ana@example.cl"))')"
token="$(api -d "{\"otp\":\"$code\"}" "$base/api/validate-otp" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

# Every check that applies to this API. Left out: positive_data_acceptance (a request that
# fits the schema is still refused for what only the server knows: a wrong code, no flow
# cookie, a RUT that is not a member's); ignored_auth and object_level_authorization (the
# document declares no security schemes: a session is a cookie or a bearer token the handler
# reads); ensure_resource_availability (it takes an operation with no declared parameters to
# have had everything its resource needs from the link, but a registration flow is named by
# its cookie, which the stateful phase leaves out of some linked requests on purpose, so the
# 404 ERR_REGISTRATION_EXPIRED of a cookie-less step would be reported as a flow that vanished).
checks=not_a_server_error,status_code_conformance,content_type_conformance
checks+=,response_schema_conformance,response_headers_conformance,negative_data_rejection
checks+=,missing_required_header,unsupported_method,allow_header_conformance,use_after_free
checks+=,rejection_is_json_error_body

run() {
  "$venv/bin/schemathesis" --config-file tools/schemathesis/schemathesis.toml run \
    "$base/api/openapi.json" \
    --header 'x-miclub-csrf: 1' \
    --checks "$checks" \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$examples" --seed "$seed" --workers 2 \
    --no-color "${extra[@]}" "$@"
}

status=0
echo "-- schemathesis: anonymous"
run || status=1
echo "-- schemathesis: as Ana, with a session"
run --header "Authorization: Bearer $token" --exclude-path /api/logout || status=1

if [ "$status" -ne 0 ]; then
  echo "schemathesis found failures (above); the portal's warnings and errors:" >&2
  grep -E 'WARN|ERROR' "$work/miclub.log" | tail -n 50 >&2 || true
fi
exit "$status"
