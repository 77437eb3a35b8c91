#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the multikernel host and boot it in QEMU on three CPUs.
# The host takes CPU 1 offline and starts its own kernel there as an
# instance, which runs on its own memory and console while the host goes
# on (qemu/spawn.sh).  Both consoles are shown, labelled.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$MK_BUILD/demo
mkdir -p "$out"
info "building the kernel (host and instance in one bzImage; incremental)"
"$MK_REPO/scripts/build.sh" host $MK_HOST_CONFIG >/dev/null
info "booting it in QEMU: 3 CPUs, 1 GiB, a 128 MiB instance pool"
rc=0
MK_LOGDIR=$out "$MK_REPO/qemu/spawn.sh" "$MK_BUILD/host" demo \
	> "$out/verdict" || rc=$?

clean() { sed 's/\x1bc//g; s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/^Booting from ROM\.*//' "$1"; }

echo
echo "================ host console (ttyS0, CPUs 0 and 2) ================"
clean "$out/demo.log" |
	grep -E 'multikernel|^\$ |^instance |^ID |^[0-9]+ +multikernel|MKTEST: (PASS|FAIL)|^multikernel:' |
	grep -Ev 'Kernel command line|KTAP|# module|# Subtest|mk_test_' |
	sed 's/^/host     | /' || true
echo
echo "================ instance console (ttyS1, CPU 1) ===================="
clean "$out/demo.ttyS1.log" |
	grep -E 'Linux version|Command line:|BIOS-e820|multikernel instance|smpboot: CPU0|Memory:|ttyS1 at|Run /init|MKINSTANCE' |
	awk '/MKINSTANCE: tick/ { n++; last = $0; if (n > 3) next }
	     { print } END { if (n > 3) { print "  ..."; print last } }' |
	sed 's/^/instance | /' || true
echo
echo "================ verdict ============================================="
grep -E '^(PASS|FAIL)' "$out/verdict" | sed 's/^/  /'
[ "$rc" = 0 ] || die "the demo did not run cleanly (logs: $out)"
info "both kernels ran; full logs: $out/demo.log and $out/demo.ttyS1.log"
