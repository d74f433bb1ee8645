#!/usr/bin/env bash
# scripts/test-with-types.sh MYPY PYTEST [ARGS...]: run mypy beside the tests (make test).
# mypy takes about 30 s of one core on a fresh clone and the tests leave a core idle now and then:
# at low priority it fills those gaps instead of holding the tests back. Its report is printed
# after the tests' and the exit status is the tests' if they failed, else mypy's.
set -uo pipefail
MYPY=${1:?usage: scripts/test-with-types.sh MYPY PYTEST [ARGS...]}; shift
LOG=$(mktemp "${TMPDIR:-/tmp}/pmim-mypy.XXXXXX")
nice -n 10 "$MYPY" >"$LOG" 2>&1 &
TYPES=$!
trap 'kill "$TYPES" 2>/dev/null; rm -f "$LOG"' EXIT
trap 'exit 130' INT TERM
echo "mypy runs beside the tests; its report follows theirs" >&2
# One process collects the tests first: it writes the assertion-rewritten test modules and the .pyc
# of the libraries they import, which the workers then read instead of each making its own (on a
# fresh clone 12 CPU-s once, then about 4 a worker instead of 12). The run itself reports any error.
"$1" --collect-only -q -p no:cacheprovider >/dev/null 2>&1
"$@"
tests=$?
wait "$TYPES"
typed=$?
echo "$MYPY"
cat "$LOG"
[ "$tests" -ne 0 ] && exit "$tests"
exit "$typed"
