# shellcheck shell=bash
# Shared by the bench scripts that run an example binary of the workspace.

# The path of example $2 of package $1 built in release mode, or BENCH_BIN when it is set (a
# build of another commit, for an A/B in one sitting). Builds it first; run from the repository.
release_example() { # package example
  if [ -n "${BENCH_BIN:-}" ]; then
    echo "$BENCH_BIN"
    return
  fi
  cargo build --release --locked -q -p "$1" --example "$2" >&2
  local target
  target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  echo "$target/release/examples/$2"
}
