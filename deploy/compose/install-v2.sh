#!/usr/bin/env bash
# Compose v2 (`docker compose`) from Debian's packages, for a bookworm machine: bookworm
# ships only docker-compose 1.29, so this takes the Compose v2 plugin of Debian 13
# (trixie), a static binary that needs nothing bookworm lacks, checked against the
# digest below, and puts it where the docker CLI looks for plugins. Debian's
# docker-compose 1.29 stays installed beside it: docker-compose.yml works with both.
#
#   deploy/compose/install-v2.sh        # then: docker compose version
#
# The package is kept in $VR_COMPOSE_CACHE, so a machine downloads it once.
set -euo pipefail

VERSION=2.26.1-4
SHA256=47681197cb2b1ab88206b42a1a92fc75f50d9530a6322d03494a473eed0408ea
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="${VR_COMPOSE_CACHE:-/var/cache/vatican-report/compose}"
PLUGINS="${DOCKER_CLI_PLUGINS:-/usr/local/lib/docker/cli-plugins}"
DEB="$CACHE/docker-compose_${VERSION}_amd64.deb"

if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "only amd64 is pinned here; install Compose v2 as your platform does" >&2
  exit 1
fi
if ! echo "$SHA256  $DEB" | sha256sum -c --quiet >/dev/null 2>&1; then
  mkdir -p "$CACHE"
  curl -fsS --retry 3 -o "$DEB.part" "$MIRROR/pool/main/d/docker-compose/docker-compose_${VERSION}_amd64.deb"
  echo "$SHA256  $DEB.part" | sha256sum -c --quiet
  mv "$DEB.part" "$DEB"
fi
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -x "$DEB" "$unpacked"
mkdir -p "$PLUGINS"
install -m 0755 "$unpacked/usr/libexec/docker/cli-plugins/docker-compose" "$PLUGINS/docker-compose"
docker compose version
