#!/usr/bin/env bash
# Screenshots of every screen of the portal at 375 and 1280 px, for looking at the brand and the
# phone layout by eye: the public routes logged out, /login, the three steps of /registro, then,
# logged in as the demo member Ana, /mi-club, each section of its menu and the public routes
# again. One full-page PNG per screen and width, named <screen>-<width>.png.
#
#   scripts/screenshots.sh [DIR]     DIR defaults to web/test-results/screenshots
#
# It starts the standalone binary (MICLUB_BIN, default target/debug/miclub, built with
# `cargo build -p miclub-standalone` when missing) on a free port with its own data folder,
# builds web/ when its build is missing or older than its sources, and drives Debian's Chromium
# through web/e2e/brand.e2e.test.ts, which checks axe on each screen as it goes (so a run also
# fails on a contrast regression).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

dir="${1:-web/test-results/screenshots}"
case "$dir" in /*) ;; *) dir="$repo/$dir" ;; esac

bin="${MICLUB_BIN:-$repo/target/debug/miclub}"
case "$bin" in /*) ;; *) bin="$repo/$bin" ;; esac
if [ ! -x "$bin" ]; then
  echo "building the standalone binary ($bin is missing)"
  cargo build -p miclub-standalone
fi

cd web
[ -d node_modules ] || npm ci --offline --no-audit --no-fund
if [ ! -f dist/index.html ] || [ -n "$(find src index.html public package.json -newer dist/index.html -print -quit 2>/dev/null)" ]; then
  echo "building the web app"
  npm run build
fi
bash scripts/ensure-chromium.sh

mkdir -p "$dir"
MICLUB_BIN="$bin" MICLUB_SCREENSHOTS_DIR="$dir" \
  npx vitest run --config vitest.e2e.config.ts e2e/brand.e2e.test.ts
echo "screenshots: $(find "$dir" -name '*.png' | wc -l) PNG files in $dir"
