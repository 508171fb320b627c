#!/usr/bin/env bash
# Base images made from Debian's packages, for a machine that cannot pull python:3.11-slim
# or debian:bookworm-slim (no access to the public image registry):
#
#   vatican-report/debian:bookworm      debootstrap's minbase of bookworm, with ca-certificates
#   vatican-report/python:3.11-bookworm that, with Debian's python3 (3.11) in a virtualenv
#                                       at /opt/python, first on PATH (python, pip)
#
# Then: docker build --build-arg BASE=vatican-report/python:3.11-bookworm .
# (docs/deploy.md says how these differ from the default bases.)
#
# Each image is made only when the engine does not have it (for this recipe); the root
# filesystem is kept as a tarball in $VR_BASE_CACHE, so a machine that lost its images
# imports it again instead of downloading every package anew. Needs root, debootstrap and a
# running Docker engine.
set -euo pipefail
cd "$(dirname "$0")"

SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE="${VR_BASE_CACHE:-/var/cache/vatican-report/base}"
DEBIAN_IMAGE="${DEBIAN_BASE:-vatican-report/debian:bookworm}"
PYTHON_IMAGE="${PYTHON_BASE:-vatican-report/python:3.11-bookworm}"
# What the images are made of: a change to this script or to python.Dockerfile makes new
# ones instead of reusing the cached ones, and so does a change of the machine's own
# certificate authorities (below) for the Python image.
RECIPE="$(cat build.sh python.Dockerfile | sha256sum | cut -c1-12)"
MACHINE_CAS=(/usr/local/share/ca-certificates/*.crt)
[ -e "${MACHINE_CAS[0]}" ] || MACHINE_CAS=()
CAS="$(cat "${MACHINE_CAS[@]}" </dev/null | sha256sum | cut -c1-8)"
TARBALL="$CACHE/$SUITE-minbase-$RECIPE.tar"

have() { docker image inspect "$1" >/dev/null 2>&1; }

make_rootfs() {
  local rootfs
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' RETURN
  # No documentation, manual pages or translations, as in Debian's own slim images.
  mkdir -p "$rootfs/etc/dpkg/dpkg.cfg.d"
  printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
    'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
    > "$rootfs/etc/dpkg/dpkg.cfg.d/excludes"
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$MIRROR"
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
  # What python:3.11-slim's Debian base does too: no package lists or caches in the image.
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/dev/* \
    "$rootfs"/proc/* "$rootfs"/sys/* "$rootfs"/tmp/* "$rootfs"/var/log/*.log
  mkdir -p "$CACHE"
  tar --numeric-owner -C "$rootfs" -cf "$TARBALL.part" .
  rm -f "$CACHE/$SUITE"-minbase-*.tar
  mv "$TARBALL.part" "$TARBALL"
}

if ! have "$DEBIAN_IMAGE-$RECIPE"; then
  [ -s "$TARBALL" ] || make_rootfs
  docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' "$TARBALL" \
    "$DEBIAN_IMAGE-$RECIPE"
fi
docker tag "$DEBIAN_IMAGE-$RECIPE" "$DEBIAN_IMAGE"

if ! have "$PYTHON_IMAGE-$RECIPE-$CAS"; then
  # The machine's own certificate authorities (a TLS-inspecting proxy's, say) are trusted
  # inside too: pip in the service's build must reach the package index as the host does.
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' EXIT
  mkdir "$context/certs"
  [ "${#MACHINE_CAS[@]}" -eq 0 ] || cp "${MACHINE_CAS[@]}" "$context/certs/"
  cp python.Dockerfile "$context/Dockerfile"
  # The host's network: a build container on Docker's bridge may not resolve the mirror.
  docker build --network host --build-arg "BASE=$DEBIAN_IMAGE-$RECIPE" \
    -t "$PYTHON_IMAGE-$RECIPE-$CAS" "$context"
fi
docker tag "$PYTHON_IMAGE-$RECIPE-$CAS" "$PYTHON_IMAGE"

echo "$DEBIAN_IMAGE"
echo "$PYTHON_IMAGE"
