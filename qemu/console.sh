#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An instance's console over messages, end to end through a terminal:
#
#   qemu/console.sh KBUILD_DIR [NAME]
#
# The host (qemu/init/console.c) starts its own bzImage as instance 1 with
# no UART and a shell on hvc0, checks /dev/mkcon1 and gives its console
# (ttyS0) to a shell.  QEMU runs in a tmux pane (qemu/run.sh with
# MK_QEMU_TTY=1), and this script types into it, as a user would:
#
#   - "multikernel console --id 1" attaches: the instance's boot log
#     comes first (its kernel command line), then its shell's prompt;
#   - a command runs in the instance's shell and its output comes back;
#   - ^C reaches the instance (the terminal is raw): it ends a sleep;
#   - ^] detaches: the host's shell answers again;
#   - "multikernel console --id 1 --log" prints what the host kept.
#
# Then the host's shell exits, and its init crashes the instance and
# checks the console after the crash and the unload; qemu/run.sh judges
# the host's log as for every test.  Prints "PASS NAME:check" or
# "FAIL NAME:check: why" lines; exits non-zero if any failed.
#
# Environment: MK_LOGDIR, MK_WORKTREE (for tools/multikernel).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 KBUILD_DIR [NAME]" >&2; exit 2; }
kbuild=$1 name=${2:-console}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${MK_LOGDIR:-/tmp/mk-logs}
busybox=/bin/busybox
mkdir -p "$logdir"
[ -x "$busybox" ] || die "no $busybox: run scripts/deps.sh"
. "$here/tmux.sh"

# busybox and the applets the shells use
shell_lines=("dir /bin 0755 0 0" "file /bin/busybox $busybox 0755 0 0")
for applet in sh cat grep mount sleep; do
	shell_lines+=("slink /bin/$applet busybox 0777 0 0")
done

gcc -static -O2 -Wall -Wextra -Werror -I "$kbuild/usr/include" \
	-o "$work/multikernel" "$MK_WORKTREE/tools/multikernel/multikernel.c"
"$here/initramfs.sh" "$work/instance.cpio" "$kbuild" "$here/init/instance.c" \
	"${shell_lines[@]}"
"$here/initramfs.sh" "$logdir/$name.cpio" "$kbuild" "$here/init/console.c" \
	"${shell_lines[@]}" \
	"file /bin/multikernel $work/multikernel 0755 0 0" \
	"file /instance.cpio $work/instance.cpio 0644 0 0" \
	"file /bzImage-host $kbuild/arch/x86/boot/bzImage 0644 0 0"

token=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
cat > "$work/qemu" <<EOF
#!/usr/bin/env bash
MK_QEMU_TTY=1 MK_QEMU_TIMEOUT=300 MK_LOGDIR='$logdir' \\
	'$here/run.sh' '$name' '$kbuild/arch/x86/boot/bzImage' \\
	'$logdir/$name.cpio' 'quiet mktoken=$token multikernel_pool=128M' \\
	> '$work/run.out' 2>&1
echo \$? > '$work/run.rc'
EOF
chmod +x "$work/qemu"
tmux_start "$work/qemu"

failed=0
pass() { echo "PASS $name:$1"; }
fail() { echo "FAIL $name:$1: $2"; failed=1; }

# Check NAME: within SECONDS, the pane shows a line matching REGEX
expect() {
	local check=$1 regex=$2 secs=$3 i

	for ((i = 0; i < secs * 5; i++)); do
		if pane | grep -qE -- "$regex"; then
			pass "$check"
			return 0
		fi
		[ -e "$work/run.rc" ] && break
		sleep 0.2
	done
	fail "$check" "no line matching '$regex' within $secs s (the pane: $logdir/$name.pane)"
	return 1
}

run() {
	expect host_shell '^host#( |$)' 240 || return 0
	keys 'multikernel console --id 1' Enter
	expect attached 'console: instance 1, \^\] detaches' 20 || return 0
	# The instance's log from its start: its kernel's command line
	expect boot_log 'Kernel command line: .*mkshell=1' 30
	keys Enter
	expect instance_prompt '^mk1#( |$)' 30 || return 0
	# Only the instance's command line has mkshell: 1 there, 0 in the host
	keys 'echo "in-$(grep -c mkshell /proc/cmdline)-$((6*7))"' Enter
	expect instance_command '^in-1-42' 30
	# Runs only once ^C ended the sleep
	keys 'sleep 600' Enter
	sleep 2
	keys C-c
	keys 'echo "after-$(grep -c mkshell /proc/cmdline)-$((2+3))"' Enter
	expect interrupt '^after-1-5' 30
	keys C-]
	expect detached 'detached from instance 1' 20 || return 0
	keys 'echo "host-$(grep -c mkshell /proc/cmdline)-$((5*5))"' Enter
	expect host_again '^host-0-25' 30
	keys 'echo "kept-$(multikernel console --id 1 --log | grep -c "^in-1-42")"' Enter
	expect log_kept '^kept-1' 30
	keys exit Enter
}
run

# The host's init goes on without the shell; run.sh judges its log
for ((i = 0; i < 900; i++)); do
	[ -e "$work/run.rc" ] && break
	sleep 0.2
done
pane > "$logdir/$name.pane"
if [ -e "$work/run.rc" ]; then
	cat "$work/run.out"
	[ "$(cat "$work/run.rc")" = 0 ] || failed=1
else
	fail finished "QEMU did not finish within 180 s after the shell's exit"
fi
exit "$failed"
