#!/usr/bin/env bash
# Debian packages the real-VS-Code tiers need: chromium (Playwright drives it) and the headers code-server's
# native modules build against. Installs only what is missing; needs root (or passwordless sudo).
set -euo pipefail
PACKAGES=(chromium fonts-liberation libkrb5-dev build-essential pkg-config python3)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "install: missing Debian packages: ${missing[*]} (run: sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
fi
echo "install: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
