#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building, checking and testing need (Debian 12), and only
# what is missing.
set -euo pipefail

pkgs=(
	git make gcc libc6-dev bc bison flex libelf-dev libssl-dev cpio xz-utils lz4
	python3 python3-ply python3-git perl ccache sparse coccinelle
	qemu-system-x86 kexec-tools b4 linux-source-6.12
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages (install as root): ${missing[*]}" >&2
	exit 1
fi
echo ">> installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null
