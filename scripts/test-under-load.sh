#!/usr/bin/env bash
# Run a command (make test) with two CPU-bound processes beside it, as on a busy machine, and
# stop them whatever the command's outcome; exits with the command's status.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/test-under-load.sh COMMAND [ARGS...]" >&2; exit 2; }
BURNERS=()
stop() { for pid in "${BURNERS[@]}"; do kill "$pid" 2>/dev/null; done; wait "${BURNERS[@]}" 2>/dev/null; }
trap stop EXIT
for _ in 1 2; do
  python3 -c "while True: pass" &
  BURNERS+=($!)
done
echo "two busy processes running beside the tests: ${BURNERS[*]}" >&2
"$@"
