#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make shell: a multikernel host in QEMU, at its shell, on this terminal.
#
#   qemu/shell.sh HOST_KBUILD_DIR INSTANCE_KBUILD_DIR [NAME]
#
# QEMU gets three CPUs, 1 GiB and an instance pool of 128 MiB; its first
# serial port is this terminal.  The host's init (qemu/init/shell.c)
# prints what to try (qemu/shell.txt) and gives the terminal to a shell,
# "host# ", with busybox and the multikernel tool.  /boot/bzImage is the
# kernel of INSTANCE_KBUILD_DIR, /boot/instance.cpio its initramfs
# (qemu/init/shell-instance.sh).  "exit" powers QEMU off (Ctrl-A x quits
# it at once); qemu/run.sh's judgement of the host's log then goes to
# NAME.verdict, beside the log, its failures to stderr, and the exit
# status is its.
#
# Environment: MK_LOGDIR (/tmp/mk-logs), MK_QEMU_TIMEOUT (seconds; none by
# default), MK_WORKTREE (for tools/multikernel).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -ge 2 ] && [ $# -le 3 ] ||
	{ echo "usage: $0 HOST_KBUILD_DIR INSTANCE_KBUILD_DIR [NAME]" >&2; exit 2; }
kbuild=$1 ikbuild=$2 name=${3:-shell}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${MK_LOGDIR:-/tmp/mk-logs}
busybox=/bin/busybox
[ -x "$busybox" ] || die "no $busybox: run scripts/deps.sh"
[ -t 0 ] || die "standard input is not a terminal: the host's shell needs one"
mkdir -p "$logdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -Wall -Wextra -Werror -I "$kbuild/usr/include" \
	-o "$work/multikernel" "$MK_WORKTREE/tools/multikernel/multikernel.c"
# The commands indented, so that no line of it looks like a prompt
grep -v -e '^#' -e '^=> ' "$here/shell.txt" |
	sed -E 's/^(host|instance)# /  &/' > "$work/motd"
tools=("dir /bin 0755 0 0" "file /bin/busybox $busybox 0755 0 0"
       "slink /bin/sh busybox 0777 0 0"
       "file /bin/multikernel $work/multikernel 0755 0 0")
"$here/initramfs.sh" "$work/instance.cpio" "$ikbuild" \
	"$here/init/shell-instance.sh" "${tools[@]}"
"$here/initramfs.sh" "$logdir/$name.cpio" "$kbuild" "$here/init/shell.c" \
	"${tools[@]}" "dir /etc 0755 0 0" "file /etc/motd $work/motd 0644 0 0" \
	"dir /boot 0755 0 0" \
	"file /boot/bzImage $ikbuild/arch/x86/boot/bzImage 0644 0 0" \
	"file /boot/instance.cpio $work/instance.cpio 0644 0 0"

# The terminal's size, which a serial line does not carry, for the
# host's shell to wrap lines where the terminal does
size=$(stty size 2> /dev/null || echo "24 80")
rc=0
MK_QEMU_TTY=1 MK_QEMU_SMP=3 MK_QEMU_TIMEOUT=${MK_QEMU_TIMEOUT:-0} \
MK_LOGDIR=$logdir "$here/run.sh" "$name" "$kbuild/arch/x86/boot/bzImage" \
	"$logdir/$name.cpio" \
	"quiet kunit.enable=0 multikernel_pool=128M mkrows=${size% *} mkcols=${size#* }" \
	> "$logdir/$name.verdict" || rc=$?
echo
info "QEMU powered off; the host's console: $logdir/$name.log"
# What went wrong in the host's log, if anything did
grep '^FAIL ' "$logdir/$name.verdict" >&2 || true
exit "$rc"
