#!/usr/bin/env bash
# Debian's chromium for the browser tests (tests/test_browser.py drives it through Playwright with
# executable_path=/usr/bin/chromium; `playwright install`, which downloads a browser, is never run).
# Idempotent: nothing to do when the binary is there. Runs as root on CI (sudo otherwise).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
echo "[setup] apt-get install chromium"
$SUDO apt-get update -qq >/dev/null || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
test -x /usr/bin/chromium || { echo "[setup] chromium did not install" >&2; exit 1; }
