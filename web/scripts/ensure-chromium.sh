#!/usr/bin/env bash
# Installs Debian's Chromium for the end-to-end tests when it is missing.
# Browsers are never downloaded by a tool (no `npx playwright install`): only apt is used.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# A first install can fail with exit 100 because a docker-clean apt hook removes the
# downloaded packages; repairing with `apt-get -f install` and repeating succeeds.
for attempt in 1 2 3; do
  if $SUDO apt-get install -y chromium; then
    break
  fi
  echo "apt-get install chromium failed (attempt $attempt); repairing and retrying" >&2
  $SUDO apt-get -f install -y || true
done

if [ ! -x "$CHROMIUM" ]; then
  echo "chromium is still missing at $CHROMIUM" >&2
  exit 1
fi
