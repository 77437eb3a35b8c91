#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a test initramfs with the kernel tree's own usr/gen_init_cpio:
#
#   qemu/initramfs.sh OUT.cpio KBUILD_DIR INIT.c [CPIO_LIST_LINES...]
#
# INIT.c is compiled static against the uapi headers of KBUILD_DIR (make
# headers) and the multikernel selftest's header in the worktree, and
# becomes /init; an INIT that is not a .c file (a script) becomes /init as
# it is.  Further gen_init_cpio lines (file, dir, slink) may follow.
#
#   qemu/initramfs.sh --selftest OUT KBUILD_DIR
#
# builds the kernel tree's multikernel selftest (its Makefile, static) as
# OUT instead, for a "file /multikernel_test OUT" line.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
selftest=$MK_WORKTREE/tools/testing/selftests/multikernel

if [ "${1:-}" = --selftest ]; then
	[ $# = 3 ] || { echo "usage: $0 --selftest OUT KBUILD_DIR" >&2; exit 2; }
	[ -d "$3/usr/include/linux" ] || { echo "no uapi headers in $3/usr/include" >&2; exit 1; }
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	make -s -C "$selftest" OUTPUT="$out" LDFLAGS=-static \
		KHDR_INCLUDES="-isystem $(cd "$3" && pwd)/usr/include"
	mv "$out/multikernel_test" "$2"
	exit 0
fi

[ $# -ge 3 ] || { echo "usage: $0 OUT.cpio KBUILD_DIR INIT.c|INIT [LINE...]" >&2; exit 2; }
out=$1 kbuild=$2 src=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
gen=$kbuild/usr/gen_init_cpio
[ -x "$gen" ] || { echo "no $gen: build the kernel first" >&2; exit 1; }
[ -d "$kbuild/usr/include/linux" ] || { echo "no uapi headers in $kbuild/usr/include" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $src in
*.c)	gcc -static -O2 -Wall -Wextra -Werror -Wno-unused-function \
		-I "$kbuild/usr/include" -I "$here/init" -I "$selftest" \
		-o "$work/init" "$src" ;;
*)	cp "$src" "$work/init" ;;
esac
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 01777 0 0"
	echo "file /init $work/init 0755 0 0"
	for line in "$@"; do
		echo "$line"
	done
} > "$work/list"
"$gen" "$work/list" > "$out.tmp"
mv "$out.tmp" "$out"
