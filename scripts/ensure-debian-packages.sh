#!/bin/sh
# ensure-debian-packages.sh [PACKAGE...]: installs the Debian packages that are missing, as root with apt-get,
# printing what it does. Without arguments it reads scripts/debian-packages.txt (one package a line, # comments).
# Exits 1 with a clear message when a package is missing and cannot be installed (not root, no apt-get, no
# network); callers decide whether that is fatal (tests needing the package skip, or fail under CI=true).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
say() { printf 'heed: %s\n' "$*" >&2; }

if [ $# -eq 0 ]; then
  set -- $(sed -e 's/#.*//' "$here/debian-packages.txt")
fi

missing=""
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $package"
  fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  say "missing Debian packages:$missing; this system has no apt-get. Install them with your package manager."
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  say "missing Debian packages:$missing; installing them needs root. Run: sudo apt-get install -y$missing"
  exit 1
fi
say "installing missing Debian packages:$missing (apt-get update, then apt-get install -y$missing)"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq >&2 || ! apt-get install -y -qq --no-install-recommends $missing >&2; then
  say "apt-get could not install$missing (no network or no such package?); tests that need them will skip (or fail under CI=true)."
  exit 1
fi
say "installed:$missing"
