# Sourced by scripts/test and .ci/run: makes sure PostgreSQL and Redis are reachable on
# loopback for the storage tests, installing (Debian) and starting them when needed, and
# exports TEST_POSTGRES_URL and TEST_REDIS_URL. Variables already set are respected.

export TEST_POSTGRES_URL="${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

apt_install() {
  as_root apt-get update -qq || true
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" \
    || { as_root apt-get -f install -y -qq; as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; }
}

postgres_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }

ensure_postgres() {
  case "$TEST_POSTGRES_URL" in *127.0.0.1:5432*|*localhost:5432*) ;; *) return 0 ;; esac
  postgres_up && return 0
  command -v pg_ctlcluster >/dev/null || apt_install postgresql
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  echo "starting postgresql $version"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do postgres_up && break; sleep 1; done
  postgres_up || { echo "postgresql did not start" >&2; return 1; }
  # Tests connect as postgres without a password over TCP on loopback.
  if ! psql "$TEST_POSTGRES_URL" -c 'select 1' >/dev/null 2>&1; then
    local hba
    hba=$(as_root su postgres -c "psql -tAc 'show hba_file'")
    as_root sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/' "$hba"
    as_root su postgres -c "psql -c 'select pg_reload_conf()'" >/dev/null
  fi
}

ensure_redis() {
  case "$TEST_REDIS_URL" in *127.0.0.1:6379*|*localhost:6379*) ;; *) return 0 ;; esac
  redis_up && return 0
  command -v redis-server >/dev/null || apt_install redis-server
  echo "starting redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "redis did not start" >&2; return 1; }
}

ensure_postgres
ensure_redis
