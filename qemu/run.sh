#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one QEMU test case and judge it from its serial log:
#
#   qemu/run.sh NAME KERNEL INITRAMFS "CMDLINE"
#
# Prints one line per check, "PASS NAME:check" or "FAIL NAME:check: why",
# and exits non-zero if any failed.  The checks: the init's own MKTEST
# results and closing line, read from the third serial port (NAME.results),
# and a console log (NAME.log) free of BUG:, WARNING:, Oops, Call Trace,
# lockdep reports and panics.  The second serial port, where a multikernel
# instance has its console, goes to NAME.ttyS1.log when MK_QEMU_TTYS1=1
# (checked for the same kernel errors; whoever asked for it judges the
# rest) and is left unconnected otherwise.  QEMU's own messages go to
# NAME.qemu.err.
#
# With MK_QEMU_TTY=1 the first serial port is also this terminal, both
# ways (qemu/console.sh runs this in tmux and types into it); Ctrl-A x
# quits QEMU.
#
# Environment: MK_LOGDIR (where NAME.log goes), MK_QEMU (the QEMU binary,
# qemu-system-x86_64), MK_QEMU_MACHINE (more QEMU options, split at
# spaces: a machine and its devices), MK_QEMU_SMP (2),
# MK_QEMU_CPU (max), MK_QEMU_MEM (1G), MK_QEMU_TIMEOUT (seconds, 180), MK_KUNIT_SUITE (KUnit
# suites that must pass), MK_KUNIT_EXPECT (an extended regex that one of its
# lines must match, for what a test only reports), MK_LOG_COUNTS (lines
# "N REGEX": exactly N console lines match the extended REGEX, for what a
# test makes the kernel log a known number of times), MK_EXPECT_PANIC (the text of a deliberate panic:
# it must appear exactly once on the console, and a "Call Trace:" is
# allowed only within the five kernel lines after it), MK_EXPECT_INSTANCE_PANIC
# (the same for the instance's console), MK_QEMU_IOTRACE (a vCPU
# number: NAME.iotrace gets that vCPU's port and MMIO accesses, every
# write to the local APICs' page (interrupt commands, MSIs, IO-APIC
# messages) by any vCPU or device, every access to COM2 (the instance's
# UART in qemu/spawn.sh) by any vCPU, and every write to port 0x80, where a
# test's init can leave markers; lines as QEMU's
# memory_region_ops_{read,write} trace events print them, with the host's
# time in seconds appended), MK_QEMU_MONITOR (a path: QEMU's human monitor
# listens there, a unix socket, and qemu/monitor.py gives it the commands
# the init prints as "MKMONITOR: COMMAND" lines; NAME.monitor gets what
# it answered).
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 NAME KERNEL INITRAMFS CMDLINE" >&2; exit 2; }
name=$1 kernel=$2 initrd=$3 cmdline=$4
logdir=${MK_LOGDIR:-/tmp/mk-logs}
log=$logdir/$name.log
results=$logdir/$name.results
mkdir -p "$logdir"

serial1=null
[ "${MK_QEMU_TTYS1:-0}" = 1 ] && serial1=file:$logdir/$name.ttyS1.raw

# Device accesses, filtered as QEMU writes them: the whole trace of a
# boot is a few gigabytes.
trace=()
if [ -n "${MK_QEMU_IOTRACE:-}" ]; then
	fifo=$(mktemp -u "$logdir/$name.fifo.XXXXXX")
	mkfifo "$fifo"
	# QEMU stamps each line "pid@seconds:"; the time moves to the end
	awk -v cpu="$MK_QEMU_IOTRACE" '
		{
			t = $1
			sub(/^[0-9]*@/, "", t)
			sub(/:.*/, "", t)
			sub(/^[^:]*:/, "", $1)
		}
		$3 == cpu || ($1 == "memory_region_ops_write" &&
		($7 == "0x80" || $7 ~ /^0xfee/)) ||
		($13 == "\047serial\047" && $7 ~ /^0x2f[89a-f]$/) { print $0, t }
	' < "$fifo" > "$logdir/$name.iotrace" &
	tracer=$!
	trace=(-trace 'memory_region_ops_*' -D "$fifo" -msg timestamp=on)
fi

# The first serial port: the log, and with MK_QEMU_TTY=1 the terminal
console=(-serial "file:$log.raw")
stdin=/dev/null stdout=/dev/null
if [ "${MK_QEMU_TTY:-0}" = 1 ]; then
	# (mux: Ctrl-A x quits QEMU, whatever the guest does)
	console=(-chardev "stdio,id=ttyS0,mux=on,signal=off,logfile=$log.raw"
		 -serial chardev:ttyS0)
	stdin=/dev/tty stdout=/dev/tty
fi

# The monitor, and what of it the init asks for (qemu/monitor.py)
monitor= watcher=
if [ -n "${MK_QEMU_MONITOR:-}" ]; then
	monitor=unix:$MK_QEMU_MONITOR,server=on,wait=off
	rm -f "$results.raw"
	python3 "$(dirname "$0")/monitor.py" "$results.raw" \
		"$MK_QEMU_MONITOR" "$logdir/$name.monitor" &
	watcher=$!
fi

failed=0
pass() { echo "PASS $name:$1"; }
fail() { echo "FAIL $name:$1: $2"; failed=1; }

start=$(date +%s.%N)
set +e
read -ra machine <<< "${MK_QEMU_MACHINE:-}"
timeout --foreground "${MK_QEMU_TIMEOUT:-180}" \
	"${MK_QEMU:-qemu-system-x86_64}" -accel tcg "${machine[@]}" \
		-cpu "${MK_QEMU_CPU:-max}" -m "${MK_QEMU_MEM:-1G}" \
		-smp "${MK_QEMU_SMP:-2}" -nographic -no-reboot \
		-monitor "${monitor:-none}" -display none "${console[@]}" \
		-serial "$serial1" -serial "file:$results.raw" \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $cmdline" "${trace[@]}" \
		<"$stdin" >"$stdout" 2>"$logdir/$name.qemu.err"
rc=$?
set -e
if [ -n "$watcher" ]; then
	kill "$watcher" 2> /dev/null || true
	wait "$watcher" 2> /dev/null || true
fi
if [ -n "${MK_QEMU_IOTRACE:-}" ]; then
	# Unblock the filter if QEMU died before it opened the FIFO
	if kill -0 "$tracer" 2>/dev/null; then
		timeout 5 sh -c ': > "$1"' sh "$fifo" || true
	fi
	wait "$tracer" || fail iotrace "filtering QEMU's trace failed"
	rm -f "$fifo"
fi
tr -d '\r' < "$log.raw" > "$log"
tr -d '\r' < "$results.raw" > "$results" 2>/dev/null || : > "$results"
if [ "$serial1" != null ]; then
	tr -d '\r' < "$logdir/$name.ttyS1.raw" > "$logdir/$name.ttyS1.log" 2>/dev/null ||
		: > "$logdir/$name.ttyS1.log"
	rm -f "$logdir/$name.ttyS1.raw"
fi
rm -f "$log.raw" "$results.raw"
secs=$(echo "$(date +%s.%N) - $start" | bc)
[ "$rc" = 124 ] && fail boot "timed out after ${MK_QEMU_TIMEOUT:-180} s (log: $log)"

# The init's own checks
while IFS= read -r line; do
	case $line in
	*"MKTEST: PASS "*) pass "${line#*MKTEST: PASS }" ;;
	*"MKTEST: FAIL "*) rest=${line#*MKTEST: FAIL }
		fail "${rest%%:*}" "${rest#*: }" ;;
	esac
done < "$results"
if grep -q "MKTEST: DONE" "$results"; then
	pass done
else
	fail done "the init did not finish (log: $log, results: $results)"
fi

for suite in ${MK_KUNIT_SUITE:-}; do
	if grep -Eq "^(\[[ 0-9.]+\] )?[[:space:]]*ok [0-9]+ $suite\$" "$log" &&
	   grep -Eq "# $suite: pass:[1-9][0-9]* fail:0 skip:0" "$log" &&
	   ! grep -q "not ok" "$log"; then
		pass "kunit_$suite"
	else
		fail "kunit_$suite" "KUnit suite did not pass cleanly: $(grep -E "# $suite:|not ok" "$log" | head -n 3 | tr '\n' ' ')"
	fi
done
if [ -n "${MK_KUNIT_EXPECT:-}" ]; then
	if grep -Eq "$MK_KUNIT_EXPECT" "$log"; then
		pass kunit_reports
	else
		fail kunit_reports "no line matches \"$MK_KUNIT_EXPECT\""
	fi
fi

k=0
while read -r want re; do
	[ -n "$want" ] || continue
	k=$((k + 1))
	got=$(grep -Ec -- "$re" "$log" || true)
	if [ "$got" = "$want" ]; then
		pass "log_count$k"
	else
		fail "log_count$k" "$got lines match \"$re\", expected $want"
	fi
done <<< "${MK_LOG_COUNTS:-}"

# A log is clean without these lines, but for one expected panic's line
# and the call trace right after it, which must be there once
bad='BUG:|WARNING:|Oops|Call Trace|Kernel panic|possible (circular|recursive) locking|suspicious RCU usage|UBSAN:|general protection fault|suspected memory leak'
check_log() {
	local what=$1 file=$2 panic=$3 hits panics

	hits=$(awk -v bad="$bad" -v p="$panic" '
		p != "" && index($0, "Kernel panic - not syncing: " p) { since = 0; seen = 1; next }
		/^\[ *[0-9]+\.[0-9]+\] / { since++ }
		/Call Trace:/ && seen && since <= 5 { next }
		$0 ~ bad { print NR ": " $0 }' "$file" | head -n 3)
	if [ -z "$hits" ]; then
		pass "${what}log_clean"
	else
		fail "${what}log_clean" "$(echo "$hits" | tr '\n' ' ')"
	fi
	[ -n "$panic" ] || return 0
	# Not its closing "---[ end Kernel panic ..." line, if it lives on
	panics=$(grep -F "Kernel panic - not syncing: $panic" "$file" |
		 grep -vcF -- "---[ end " || true)
	if [ "$panics" = 1 ]; then
		pass "${what}expected_panic"
	else
		fail "${what}expected_panic" "$panics \"Kernel panic - not syncing: $panic\" lines, expected 1"
	fi
}
check_log "" "$log" "${MK_EXPECT_PANIC:-}"
# The instance's console, judged by the same rule
if [ "$serial1" != null ]; then
	check_log instance_ "$logdir/$name.ttyS1.log" \
		"${MK_EXPECT_INSTANCE_PANIC:-}"
fi

echo "INFO $name: $(printf '%.1f' "$secs") s, log $log"
exit "$failed"
