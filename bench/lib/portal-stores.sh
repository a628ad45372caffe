# shellcheck shell=bash
# The stores bench_gateway's `full` portal runs on: auth's and accounts' databases on the
# PostgreSQL server $server (named `${portal_db_prefix}_auth` and `_accounts`, dropped and made
# anew by the script) and the ephemeral store's keys under "bench:" on the Redis at $redis.
# Shared by gateway.sh and instructions.sh; each sets those three variables first.

# The URL of the portal's database of `service` (auth or accounts) on $server.
portal_db_url() { # service
  echo "${server%/*}/${portal_db_prefix}_$1"
}

drop_portal_databases() {
  for service in auth accounts; do
    psql -q "$server" -c "DROP DATABASE IF EXISTS ${portal_db_prefix}_$service WITH (FORCE)" >/dev/null 2>&1 || true
  done
}

# Empty stores for a portal about to start: both databases made anew, the Redis keys gone.
fresh_portal_stores() {
  drop_portal_databases
  for service in auth accounts; do
    psql -q "$server" -c "CREATE DATABASE ${portal_db_prefix}_$service" >/dev/null
  done
  redis-cli -u "$redis" --scan --pattern 'bench:*' | xargs -r redis-cli -u "$redis" del >/dev/null
}
