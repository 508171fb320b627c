#!/usr/bin/env bash
# Rewrites the lock files from pyproject.toml: `bash requirements/lock.sh` after changing a
# dependency (pins that still fit are kept), `bash requirements/lock.sh --upgrade` to move
# every pin to the newest release that fits. Needs the dev install (it brings uv).
#
# One lock for every platform and every Python from 3.11 (uv's --universal: markers, not the
# machine running this, decide what is installed), with the hashes pip checks on install.
# The runtime set is resolved first; the dev set is held to it, so runtime.txt is exactly the
# runtime part of dev.txt (tests/packaging/test_lock.py checks both against pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
UV="${UV:-.venv/bin/uv}"

compile() {
  "$UV" pip compile pyproject.toml --quiet --universal --python-version 3.11 \
    --generate-hashes --no-strip-markers --custom-compile-command "bash requirements/lock.sh" \
    "$@"
}

compile "${@}" --output-file requirements/runtime.txt
compile "${@}" --extra dev --constraint requirements/runtime.txt --output-file requirements/dev.txt
