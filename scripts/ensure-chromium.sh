#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests if it is missing (needs root, as in CI).
# Another apt or dpkg (an unattended upgrade, a second make test) may hold the package lock:
# apt waits for it (DPkg::Lock::Timeout), and a step that still fails is tried again for up to
# ten minutes before giving up with one sentence.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing and we are not root: install Debian's 'chromium' package to run the browser tests" >&2
  exit 0
fi
APT=(apt-get -o DPkg::Lock::Timeout=300 -qq)
retry() {
  local deadline=$((SECONDS + ${ENSURE_CHROMIUM_WAIT_S:-600}))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "could not install chromium: '$*' kept failing (is another apt holding the lock?); run scripts/ensure-chromium.sh again when it has finished" >&2
      return 1
    fi
    echo "apt is busy (another package manager holds the lock?); trying again in 10 s..." >&2
    sleep 10
  done
}
echo "installing Debian's chromium for the browser tests..." >&2
retry "${APT[@]}" update
retry env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y chromium >/dev/null
