#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests if it is missing (needs root, as in CI).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing and we are not root: install Debian's 'chromium' package to run the browser tests" >&2
  exit 0
fi
echo "installing Debian's chromium for the browser tests..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
