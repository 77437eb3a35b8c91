#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the multikernel host and boot it in QEMU, where a small
# init walks through what the host can do today.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$MK_BUILD/demo
mkdir -p "$out"
info "building the host kernel (CONFIG_MULTIKERNEL=y; incremental)"
"$MK_REPO/scripts/build.sh" host base multikernel kunit >/dev/null
"$MK_REPO/qemu/initramfs.sh" "$out/demo.cpio" "$MK_BUILD/host" \
	"$MK_REPO/qemu/init/host.c"
info "booting it in QEMU (2 CPUs, 1 GiB, 128 MiB instance pool)"
MK_LOGDIR=$out MK_KUNIT_SUITE=multikernel "$MK_REPO/qemu/run.sh" demo \
	"$MK_BUILD/host/arch/x86/boot/bzImage" "$out/demo.cpio" \
	"mktest=demo multikernel_pool=128M" > "$out/verdict" || true

echo
echo "---------------- host console (ttyS0) ----------------"
# The kernel's own multikernel lines and the demo's narration
sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/^c\[/[/' "$out/demo.log" |
	grep -E 'multikernel|Multikernel|^(DEMO|\$|  )|# multikernel|^ *ok ' |
	grep -Ev '^MKTEST|Kernel command line|KTAP|# module' || true
echo "------------------------------------------------------"
echo
if grep -q '^FAIL' "$out/verdict"; then
	grep '^FAIL' "$out/verdict"
	die "the demo did not run cleanly (log: $out/demo.log)"
fi
info "full log: $out/demo.log"
