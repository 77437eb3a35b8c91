#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building, checking and testing need (Debian 12), and only
# what is missing; unpack QEMU 10 from bookworm-backports beside the builds
# (the x2APIC run of the spawn test).
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
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "error: missing packages (install as root): ${missing[*]}" >&2
		exit 1
	fi
	echo ">> installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

# QEMU 10 from bookworm-backports, unpacked into MK_QEMU10_DIR with an apt
# configuration of its own: the machine's sources and its QEMU 7.2 stay as
# they are.  Its libraries are those QEMU 7.2 brought.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$MK_QEMU10" ]; then
	echo ">> fetching QEMU 10 from bookworm-backports into $MK_QEMU10_DIR"
	apt=$MK_QEMU10_DIR.apt
	rm -rf "$apt" "$MK_QEMU10_DIR"
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/debs"
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> "$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list"
	      -o "Dir::Etc::SourceParts=/nonexistent"
	      -o "Dir::State::Lists=$apt/lists"
	      -o "Dir::Cache::Archives=$apt/archives"
	      -o "APT::Sandbox::User=root" -qq)
	apt-get "${opts[@]}" update
	(cd "$apt/debs" && apt-get "${opts[@]}" download \
		qemu-system-x86/bookworm-backports \
		qemu-system-common/bookworm-backports \
		qemu-system-data/bookworm-backports)
	mkdir -p "$MK_QEMU10_DIR.tmp"
	for deb in "$apt"/debs/*.deb; do
		dpkg-deb -x "$deb" "$MK_QEMU10_DIR.tmp"
	done
	mv "$MK_QEMU10_DIR.tmp" "$MK_QEMU10_DIR"
	rm -rf "$apt"
	"$MK_QEMU10" --version | head -n 1
fi
