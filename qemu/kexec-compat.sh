#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Plain kexec and kdump on a CONFIG_MULTIKERNEL=y kernel, with Debian's
# kexec-tools (/sbin/kexec) in the initramfs:
#
#   qemu/kexec-compat.sh KBUILD_DIR LOGDIR
#
# One QEMU run boots four kernels in turn (see qemu/init/kexec.c):
#
#   stage 1  kexec_load():      crash kernel load/unload/reload, CPU 1
#                               offline and online, then kexec -l; kexec -e
#   stage 2  kexec_file_load(): crash kernel load, CPU hotplug, unload,
#                               then kexec -s -l; kexec -e
#   stage 3  kexec -p, then a real panic (sysrq c)
#   crash    the kdump kernel checks /proc/vmcore
#
# Prints qemu/run.sh's "PASS kexec:check" / "FAIL kexec:check: why" lines
# and its own: every stage was reached, four kernels booted, and the only
# panic is the deliberate one.  Exits non-zero on any failure.
#
# Needs: KBUILD_DIR built with kconfig/base.config + multikernel.config
# (bzImage, usr/gen_init_cpio, the uapi headers of "make headers"),
# /sbin/kexec and ldd.  Environment: as qemu/run.sh; MK_QEMU_TIMEOUT
# defaults to 150 s here.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KBUILD_DIR LOGDIR" >&2; exit 2; }
kbuild=$(cd "$1" && pwd)
logdir=$2
here=$(cd "$(dirname "$0")" && pwd)
name=kexec
kernel=$kbuild/arch/x86/boot/bzImage
kexec_bin=/sbin/kexec
log=$logdir/$name.log
results=$logdir/$name.results
cpio=$logdir/$name.cpio

die() { echo "FAIL $name:setup: $*"; exit 1; }

[ -f "$kernel" ] || die "no $kernel: build the kernel first"
[ -x "$kexec_bin" ] || die "no $kexec_bin: install kexec-tools"
if [ -f "$kbuild/.config" ]; then
	for opt in MULTIKERNEL KEXEC KEXEC_FILE CRASH_DUMP PROC_VMCORE \
		   PROC_KCORE HOTPLUG_CPU MAGIC_SYSRQ; do
		grep -qx "CONFIG_$opt=y" "$kbuild/.config" ||
			die "$kbuild/.config lacks CONFIG_$opt=y"
	done
fi
mkdir -p "$logdir"

# /sbin/kexec, its ELF interpreter and every library it needs, at the
# paths the dynamic linker looks them up, plus the kernel to load.
declare -A dirs=()
lines=()
add_file() {	# add_file PATH-IN-INITRAMFS SOURCE MODE
	local d=${1%/*} parts=() p=""
	IFS=/ read -ra parts <<< "${d#/}"
	for part in "${parts[@]}"; do
		p=$p/$part
		if [ -z "${dirs[$p]:-}" ]; then
			dirs[$p]=1
			lines+=("dir $p 0755 0 0")
		fi
	done
	lines+=("file $1 $2 $3 0 0")
}
add_file /sbin/kexec "$(readlink -f "$kexec_bin")" 0755
libs=$(ldd "$kexec_bin" | awk '
	$2 == "=>" && $3 ~ /^\// { print $3 }
	$1 ~ /^\// { print $1 }') || die "ldd $kexec_bin failed"
[ -n "$libs" ] || die "ldd lists no libraries for $kexec_bin"
for lib in $libs; do
	[ -e "$lib" ] || die "$lib (needed by $kexec_bin) is missing"
	add_file "$lib" "$(readlink -f "$lib")" 0755
done
add_file /boot/bzImage "$kernel" 0644

"$here/initramfs.sh" "$cpio" "$kbuild" "$here/init/kexec.c" "${lines[@]}"

# The deliberate panic of stage 3; run.sh sees it there once
export MK_EXPECT_PANIC='sysrq triggered crash'
export MK_LOGDIR=$logdir
export MK_QEMU_TIMEOUT=${MK_QEMU_TIMEOUT:-150}

failed=0
"$here/run.sh" "$name" "$kernel" "$cpio" \
	"crashkernel=128M multikernel_pool=64M retain_initrd mkstage=1" ||
	failed=1

pass() { echo "PASS $name:$1"; }
fail() { echo "FAIL $name:$1: $2"; failed=1; }

[ -f "$log" ] || { fail log "no $log"; exit 1; }

# Each stage must have run, in order (a kernel that never boots prints
# nothing, so run.sh alone would not notice it).
prev=0
for check in stage2_reached stage3_reached crash_kernel_booted; do
	n=$(grep -n -m1 "MKTEST: PASS $check\$" "$results" | cut -d: -f1 || true)
	if [ -z "$n" ]; then
		fail "seen_$check" "no \"MKTEST: PASS $check\" in $results"
	elif [ "$n" -le "$prev" ]; then
		fail "seen_$check" "\"MKTEST: PASS $check\" out of order (line $n)"
	else
		pass "seen_$check"
		prev=$n
	fi
done

# QEMU booted one kernel, which kexec'd twice, then the kdump kernel.
boots=$(grep -c "Linux version " "$log" || true)
if [ "$boots" = 4 ]; then
	pass four_kernels
else
	fail four_kernels "$boots kernels booted, expected 4 (stage 1, 2, 3, crash)"
fi

exit "$failed"
