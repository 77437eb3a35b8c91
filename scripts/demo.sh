#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: a multikernel host in QEMU starts a second kernel on one of
# its CPUs and talks to it.  It types qemu/shell.txt into the host's
# shell of make shell (qemu/story.sh) and shows each command and what it
# printed as it happens, labelled with whose console it is: the host's,
# or the instance's while "multikernel console" is attached to it.
#
# make shell (--shell): the same machine, its host's shell on this
# terminal (qemu/shell.sh), for a person to try.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

shell=0
case ${1:-} in
--shell) shell=1 ;;
"") ;;
*) die "usage: $0 [--shell]" ;;
esac
out=$MK_BUILD/demo
mkdir -p "$out"
info "building the host kernel and a kernel built to be an instance (incremental; logs: $out/build-*.log)"
"$MK_REPO/scripts/build.sh" host $MK_HOST_CONFIG > "$out/build-host.log" 2>&1 ||
	die "the host kernel did not build ($out/build-host.log)"
"$MK_REPO/scripts/build.sh" instance base small instance \
	> "$out/build-instance.log" 2>&1 ||
	die "the instance kernel did not build ($out/build-instance.log)"
info "booting the host in QEMU (3 CPUs, 1 GiB, 128 MiB for instances; TCG, so each step takes seconds)"
if [ "$shell" = 1 ]; then
	exec env MK_LOGDIR="$out" "$MK_REPO/qemu/shell.sh" "$MK_BUILD/host" \
		"$MK_BUILD/instance" shell
fi
echo

# The story as it comes: tail follows it until story.sh ends
: > "$out/demo.story"
rc=0
MK_LOGDIR=$out "$MK_REPO/qemu/story.sh" "$MK_BUILD/host" \
	"$MK_BUILD/instance" demo > "$out/verdict" 2>&1 &
story=$!
# Ctrl-C ends the story too (its tmux server and QEMU with it)
trap 'kill "$story" 2> /dev/null || true' INT TERM EXIT
tail -n +1 -f --pid="$story" "$out/demo.story" || true
wait "$story" || rc=$?

echo
if [ "$rc" = 0 ]; then
	info "the host ran on CPUs 0 and 2 while the instance's kernel ran on CPU 1; logs: $out"
else
	grep '^FAIL ' "$out/verdict" || true
	die "the demo did not run as it should (logs: $out)"
fi
