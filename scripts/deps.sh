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
	tmux busybox-static python3-docutils gnuplot-nox fonts-liberation
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
# configuration and cache of its own: the machine's sources, caches and
# QEMU 7.2 stay as they are.  Its libraries are those QEMU 7.2 brought,
# its firmware (SeaBIOS) that of Debian 12, which it finds in
# /usr/share/qemu; it complains about QEMU 7.2's display and audio
# modules, which it does not need.  It is moved in place only once it
# runs.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$MK_QEMU10" ]; then
	echo ">> fetching QEMU 10 from bookworm-backports into $MK_QEMU10_DIR"
	apt=$MK_QEMU10_DIR.apt tmp=$MK_QEMU10_DIR.tmp
	rm -rf "$apt" "$tmp" "$MK_QEMU10_DIR"
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/cache" \
		"$apt/debs" "$tmp"
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> "$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list"
	      -o "Dir::Etc::SourceParts=/nonexistent"
	      -o "Dir::State::Lists=$apt/lists"
	      -o "Dir::Cache=$apt/cache"
	      -o "Dir::Cache::Archives=$apt/archives"
	      -o "APT::Sandbox::User=root" -qq)
	apt-get "${opts[@]}" update
	(cd "$apt/debs" && apt-get "${opts[@]}" download \
		qemu-system-x86/bookworm-backports \
		qemu-system-common/bookworm-backports \
		qemu-system-data/bookworm-backports)
	for deb in "$apt"/debs/*.deb; do
		echo ">> unpacking $(basename "$deb")"
		dpkg-deb -x "$deb" "$tmp"
	done
	"${tmp}${MK_QEMU10#"$MK_QEMU10_DIR"}" --version | head -n 1
	mv "$tmp" "$MK_QEMU10_DIR"
	rm -rf "$apt"
fi
