#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The end-to-end test: a second kernel runs on CPUs 1 and 3 while the host
# runs on.
#
#   qemu/spawn.sh [--kdump | --segments | --x2apic | --lifecycle | --mce |
#                  --many | --bench]
#                 [--instance KBUILD_DIR] KBUILD_DIR [NAME]
#
# QEMU gets four CPUs and the pool; the host (qemu/init/spawn.c) offlines
# CPUs 1 and 3 and starts its own bzImage there as instance 1, or the
# bzImage of --instance (a kernel built only to be an instance), with the
# instance initramfs (qemu/init/instance.c) and a random token on its
# command line; the host starts CPU 1, the instance's kernel CPU 3.  The
# host's checks come back through qemu/run.sh; this script then judges the
# instance's console, the second serial port:
#
#   - the instance kernel's banner, and its init printing the token;
#   - two CPUs online in it, APIC ids 1 and 3, each running a process;
#   - its e820 map: its part of the pool, nothing below 1 MiB, no more,
#     and MemTotal within it; that part inside one 128 MiB memory section
#     but with --segments, where user space placed it;
#   - its tick sequence going on after the host was refused CPU 1;
#   - no warning, oops or panic (qemu/run.sh checks that, as for the host);
#   - the devices it touched, and the interrupts the host sent it, from
#     QEMU's trace (see below).
#
# With --kdump the host panics with a crash kernel loaded once the
# instance runs: the crash kernel must come up, its vmcore must leave out
# the pool and the shared area, and the instance must go on running
# through the panic and the crash kernel's boot, untouched.
#
# With --segments the instance's boot parameters are built in user space
# (multikernel load --segments, kexec_load()) rather than by the kernel,
# for one CPU, CPU 1; the instance is judged as without it.
#
# With --x2apic the machine is QEMU 10's (scripts/deps.sh), a q35 with an
# Intel IOMMU that remaps interrupts in x2APIC mode (EIM) and CPUs with
# x2APIC: the host must run its local APICs in cluster x2APIC mode and
# the instance in physical x2APIC mode, the mode its CPUs came in.  Its
# CPUs 2 and 3 are in a second socket, at APIC ids 256 and 257: the
# instance runs on APIC ids 1 and 257 and rings CPU 2 (doorbell_cpu).  The
# bad requests are left out, and there is no trace of device accesses
# (the interrupt command register is an MSR in x2APIC mode, which QEMU's
# memory trace does not see).  The instance is judged as without it.
#
# With --lifecycle the host's init is qemu/init/lifecycle.c: it starts
# and stops instances on CPU 1 (and CPU 3 every other pair) over and over
# and checks the stop calls; this script then counts the graceful stops
# on the instance's console.
# There is no trace of device accesses: CPU 1 changes hands every cycle.
#
# With --mce the host's init has QEMU's monitor raise machine checks on
# the instance's CPUs and the host's (qemu/run.sh with MK_QEMU_MONITOR): the instance must report what it survives to the host, leave
# the banks to it, take a broadcast machine check, and panic alone on a
# fatal one.  The instance's console must say what it reported.  Then a
# start that fails (multikernel.test_start_eio) must leave its CPU with
# machine checks on: QEMU resets the machine on a broadcast machine check
# that finds CR4.MCE clear on any CPU.
#
# With --many the host's init is qemu/init/many.c, on sixteen CPUs: an
# instance on each of CPUs 1-15 at once, the --instance kernel without a
# console, each answering messages; then all stopped and unloaded with
# nothing leaked.  The start-to-READY times of the first and the last are
# printed.  MK_MANY_BENCH=1 (make bench) only times them, for a host
# without kmemleak.
#
# --bench tests nothing: it hands the same kernels and initramfs images to
# qemu/bench.py, which times spawns against cold boots (make bench).
#
# Environment: MK_LOGDIR, MK_WORKTREE (for tools/multikernel), MK_BENCH_RUNS
# (5), MK_BENCH_OUT and MK_BENCH_ABOUT (bench.py's --out and --about).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	echo "usage: $0 [--kdump | --segments | --x2apic | --lifecycle | --mce | --many | --bench] [--instance KBUILD_DIR] KBUILD_DIR [NAME]" >&2
	exit 2
}
mode=normal extra= ikbuild=
while [ $# -gt 0 ]; do
	case $1 in
	--kdump) mode=kdump extra="mkspawn=kdump crashkernel=128M"
		export MK_EXPECT_PANIC='sysrq triggered crash' ;;
	--segments) mode=segments extra="mkspawn=segments" ;;
	--x2apic) mode=x2apic extra="mkspawn=x2apic" ;;
	--lifecycle) mode=lifecycle ;;
	--mce) mode=mce extra="mkspawn=mce mce=print_all" ;;
	--many) mode=many ;;
	--bench) mode=bench ;;
	--instance) [ $# -ge 2 ] || usage; ikbuild=$2; shift ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
kbuild=$1 name=${2:-spawn}
ikbuild=${ikbuild:-$kbuild}
logdir=${MK_LOGDIR:-/tmp/mk-logs}
here=$(cd "$(dirname "$0")" && pwd)
init=spawn.c
[ "$mode" = lifecycle ] && init=lifecycle.c
[ "$mode" = many ] && init=many.c
mkdir -p "$logdir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
pass() { echo "PASS $name:$1"; }
fail() { echo "FAIL $name:$1: $2"; failed=1; }
# Check CHECK passes if FILE has a line matching the basic regex PATTERN
expect_line() {
	if grep -q -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "$4"
	fi
}

gcc -static -O2 -Wall -Wextra -Werror -I "$kbuild/usr/include" \
	-o "$work/multikernel" "$MK_WORKTREE/tools/multikernel/multikernel.c"
"$here/initramfs.sh" "$work/instance.cpio" "$ikbuild" "$here/init/instance.c" \
	"dir /sbin 0755 0 0" "slink /sbin/poweroff /init 0777 0 0"
# The host's bzImage as a kernel without CONFIG_MULTIKERNEL_INSTANCE: clear
# XLF_MULTIKERNEL_INSTANCE (bit 15 of xloadflags at 0x236)
cp "$kbuild/arch/x86/boot/bzImage" "$work/bzImage-noinstance"
hi=$(od -An -tu1 -j $((0x237)) -N1 "$work/bzImage-noinstance" | tr -d ' ')
printf "\\$(printf '%03o' $((hi & 0x7f)))" |
	dd of="$work/bzImage-noinstance" bs=1 seek=$((0x237)) conv=notrunc status=none
"$here/initramfs.sh" "$logdir/$name.cpio" "$kbuild" "$here/init/$init" \
	"dir /bin 0755 0 0" \
	"file /bin/multikernel $work/multikernel 0755 0 0" \
	"file /bzImage $ikbuild/arch/x86/boot/bzImage 0644 0 0" \
	"file /bzImage-noinstance $work/bzImage-noinstance 0644 0 0" \
	"file /instance.cpio $work/instance.cpio 0644 0 0" \
	"file /bzImage-host $kbuild/arch/x86/boot/bzImage 0644 0 0"

if [ "$mode" = bench ]; then
	python3 "$here/bench.py" --runs "${MK_BENCH_RUNS:-5}" \
		${MK_BENCH_OUT:+--out "$MK_BENCH_OUT"} \
		--about "${MK_BENCH_ABOUT:-}" \
		"$kbuild/arch/x86/boot/bzImage" "$logdir/$name.cpio" \
		"$ikbuild/arch/x86/boot/bzImage" "$work/instance.cpio"
	exit 0
fi

token=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
rc=0
ilog=$logdir/$name.ttyS1.log
results=$logdir/$name.results

if [ "$mode" = lifecycle ]; then
	# lifecycle.c has the host's own kernel, with LKDTM, panic as an
	# instance
	MK_EXPECT_INSTANCE_PANIC=dumptest \
	MK_QEMU_SMP=4 MK_QEMU_TTYS1=1 MK_LOGDIR=$logdir "$here/run.sh" "$name" \
		"$kbuild/arch/x86/boot/bzImage" "$logdir/$name.cpio" \
		"mktoken=$token multikernel_pool=128M" || rc=$?
	[ "$rc" = 0 ] || failed=1
	sed -n 's/.*MKSPAWN: \(cycles: .*\|slab .*\)/INFO '"$name"': \1/p' "$results"
	# Each graceful stop ran the instance's /sbin/poweroff
	want=$(sed -n 's/.*MKSPAWN: graceful=\([0-9]*\).*/\1/p' "$results")
	got=$(grep -c "MKINSTANCE: poweroff\$" "$ilog" || true)
	if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
		pass user_space_told
	else
		fail user_space_told "${got:-0} poweroffs on the instance's console for ${want:-no} graceful stops"
	fi
	# The last of them was the host's reboot's: it waited for the instance
	# (the only reboot; its first line may reach the console before the
	# init's last, which the tty buffers)
	if awk '/multikernel: reboot: asking 1 instance\(s\) to shut down first/ { asked = 1 }
		asked && /multikernel: instance 1 shut down: stopped/ { stopped = 1 }
		stopped && /multikernel: reboot: every instance shut down/ { ok = 1 }
		END { exit !ok }' "$logdir/$name.log"; then
		pass reboot_stops_instances
	else
		fail reboot_stops_instances "the host's reboot did not ask instance 1 to shut down and wait for it ($logdir/$name.log)"
	fi

	# The host relocated the kernel it decompressed to a random address,
	# never its link address, unless its command line said nokaslr
	link=$(awk '$3 == "_text" { print $1 }' "$kbuild/System.map")
	text_of() {
		awk -v t="Command line: dis_ucode_ldr mktoken=$token-$1 " '
			{ sub(/\r$/, "") }
			index($0, t) { on = 1 }
			on && match($0, /MKINSTANCE: _text=[0-9a-f]+/) {
				print substr($0, RSTART + 18, RLENGTH - 18)
				exit
			}
		' "$ilog"
	}
	random=$(text_of PANIC) fixed=$(text_of HARDLOCKUP)
	if [ -n "$random" ] && [ "$random" != "$link" ] && [ "$fixed" = "$link" ]; then
		pass instance_kaslr
	else
		fail instance_kaslr "kernel text at ${random:-?} (want other than $link), with nokaslr at ${fixed:-?} (want $link)"
	fi
	exit "$failed"
fi
if [ "$mode" = many ]; then
	# 48 MiB for each of the fifteen (qemu/init/many.c).  The host boots
	# CPU 0 alone (maxcpus=1): taking a CPU offline stops every online
	# one, and sixteen vCPUs spinning in stop_machine on two host cores
	# once took TCG 255 s for the first; CPUs 1-15 stay present and
	# offline for the instances, and come online at the end.
	MK_QEMU_SMP=16 MK_QEMU_MEM=2G MK_QEMU_TIMEOUT=300 \
	MK_LOGDIR=$logdir "$here/run.sh" "$name" \
		"$kbuild/arch/x86/boot/bzImage" "$logdir/$name.cpio" \
		"mktoken=$token multikernel_pool=720M maxcpus=1${MK_MANY_BENCH:+ mkbench=1}" ||
		rc=$?
	[ "$rc" = 0 ] || failed=1
	sed -n 's/.*MKSPAWN: ready_ms \(.*\)/INFO '"$name"': start to READY (ms), \1/p' "$results"
	exit "$failed"
fi
if [ "$mode" = mce ]; then
	# Intel's machine checks, which are broadcast; exactly one report:
	# the instance sends an error its banks keep once.  It dies in the
	# handler of the last on both its CPUs, and clears MCIP on both as
	# they stop: the host finds none set when it takes them back.
	MK_EXPECT_INSTANCE_PANIC="Fatal machine check" \
	MK_LOG_COUNTS="1 instance 1: machine check on its CPU of APIC id 1: bank 2 
0 machine check in progress since before this kernel ran here" \
	MK_QEMU_CPU=max,vendor=GenuineIntel,family=6,model=106,stepping=6 \
	MK_QEMU_MONITOR=$work/monitor MK_QEMU_SMP=4 MK_QEMU_TTYS1=1 \
	MK_LOGDIR=$logdir "$here/run.sh" "$name" \
		"$kbuild/arch/x86/boot/bzImage" "$logdir/$name.cpio" \
		"mktoken=$token multikernel_pool=128M $extra" || rc=$?
	[ "$rc" = 0 ] || failed=1
	expect_line instance_reported_mce "$ilog" \
		"machine check of APIC id 1, bank 2, status 0xb100000000000000: reported to the host" \
		"the instance did not say it reported its machine check ($ilog)"
	exit "$failed"
fi
qemu=(MK_QEMU_SMP=4) iotrace=1 apics=(1 3)
if [ "$mode" = x2apic ]; then
	[ -x "$MK_QEMU10" ] || { echo "FAIL $name:qemu10: no $MK_QEMU10 (scripts/deps.sh)"; exit 1; }
	# Two sockets of 256 cores: CPUs 0 and 1 of the first (APIC ids 0
	# and 1), and CPUs 2 and 3 the first two of the second (256, 257)
	cpu="max-x86_64-cpu,socket-id=1,thread-id=0"
	qemu=(MK_QEMU="$MK_QEMU10" MK_QEMU_CPU=max,+x2apic
	      MK_QEMU_SMP=2,maxcpus=512,sockets=2,cores=256,threads=1
	      MK_QEMU_MACHINE="-machine q35 -device intel-iommu,intremap=on,eim=on -device $cpu,core-id=0 -device $cpu,core-id=1")
	iotrace= apics=(1 257)
fi
env "${qemu[@]}" MK_QEMU_TTYS1=1 MK_QEMU_IOTRACE=$iotrace \
	MK_LOGDIR=$logdir "$here/run.sh" "$name" \
	"$kbuild/arch/x86/boot/bzImage" "$logdir/$name.cpio" \
	"mktoken=$token multikernel_pool=128M $extra" || rc=$?
[ "$rc" = 0 ] || failed=1

expect_line instance_banner "$ilog" "^\(\[[ 0-9.]*\] \)\?Linux version" \
	"no kernel banner on the second serial port ($ilog)"
expect_line instance_token "$ilog" "MKINSTANCE: token=$token\$" \
	"the instance's init did not print token $token"
expect_line instance_no_shorthand "$ilog" "IPI shorthand broadcast: disabled" \
	"the instance does not say its IPI shorthand is off"
# Its console keeps the rate the host left on the UART, or takes console='s
rate=115200
[ "$mode" = segments ] && rate=57600
expect_line instance_console_rate "$ilog" "MKINSTANCE: console speed=$rate" \
	"the instance's console does not run at $rate baud ($ilog)"
# Its CPUs: CPU n of the instance is the host's CPU (APIC id) apics[n]
[ "$mode" = segments ] && apics=(1)
want="cpus=${#apics[@]}"
for n in "${!apics[@]}"; do
	want+=" CPU $n ran with APIC id ${apics[n]}"
done
got=$(sed -n 's/\r$//; s/.*MKINSTANCE: \(cpus=.*\|CPU .* ran with APIC id .*\)/\1/p' "$ilog" |
	paste -sd ' ')
if [ "$got" = "$want" ]; then
	pass instance_cpus
else
	fail instance_cpus "want '$want', the instance said '$got'"
fi

# The host's view: the instance's memory
spawn=$(grep -o 'MKSPAWN: .*' "$results" | head -n 1 || true)
mem_lo=$(sed -n 's/.*mem=\(0x[0-9a-f]*\)-.*/\1/p' <<< "$spawn")
mem_hi=$(sed -n 's/.*mem=0x[0-9a-f]*-\(0x[0-9a-f]*\).*/\1/p' <<< "$spawn")

# e820: one range inside the instance's memory, nothing below 1 MiB (the
# host's two entries are adjacent, and the instance merges them)
e820=$(grep -o 'BIOS-e820: \[mem 0x[0-9a-f]*-0x[0-9a-f]*\] [a-z]*' "$ilog" || true)
if [ -z "$spawn" ] || [ -z "$e820" ]; then
	fail instance_e820 "no e820 map in the instance's log or no MKSPAWN line"
else
	high=0 bad=
	while read -r _ _ range type; do
		s=${range%-*} e=${range#*-}
		e=${e%]}
		if [ "$type" != usable ]; then
			bad+=" $range $type"
		elif (( s >= mem_lo && e <= mem_hi )); then
			high=$((high + 1))
		else
			bad+=" $range"
		fi
	done <<< "$e820"
	if [ -z "$bad" ] && [ "$high" = 1 ]; then
		pass instance_e820
	else
		fail instance_e820 "want one range, in $mem_lo-$mem_hi, got $high;$bad"
	fi
fi
memtotal=$(sed -n 's/.*MKINSTANCE: MemTotal=\([0-9]*\) kB.*/\1/p' "$ilog" | head -n 1)
if [ -n "$memtotal" ] && [ -n "$mem_lo" ] &&
   [ "$memtotal" -gt 0 ] &&
   [ $((memtotal * 1024)) -le $((mem_hi - mem_lo + 1)) ]; then
	pass instance_memtotal
else
	fail instance_memtotal "MemTotal ${memtotal:-?} kB is not within the instance's memory $mem_lo-$mem_hi"
fi
# The host starts its pool at a 128 MiB memory section where memory
# allows, as it does here, so that the first instance lies in one
if [ "$mode" != segments ]; then
	if [ -n "$mem_lo" ] && (( mem_lo >> 27 == mem_hi >> 27 )); then
		pass instance_one_section
	else
		fail instance_one_section "the instance's memory ${mem_lo:-?}-${mem_hi:-?} crosses a 128 MiB memory section"
	fi
fi

if [ "$mode" = x2apic ]; then
	expect_line host_x2apic "$logdir/$name.log" \
		"APIC: Switched APIC routing to: cluster x2apic" \
		"the host did not switch to cluster x2APIC mode"
	expect_line instance_x2apic "$ilog" \
		"APIC: Switched APIC routing to: physical x2apic" \
		"the instance did not run in physical x2APIC mode"
	exit "$failed"
fi

if [ "$mode" = kdump ]; then
	# The crash kernel powers off 4 s after its init started
	expect_line crash_kernel_booted "$logdir/$name.log" \
		"MKINSTANCE: token=crash-$token\$" \
		"no crash kernel init on the first serial port"
	# Its vmcore leaves out the pool and the shared area, which the host
	# named on its command line, as it leaves out the crash kernel
	out=$(grep -c "MKINSTANCE: vmcore leaves out 0x[0-9a-f]*-0x[0-9a-f]*" "$logdir/$name.log" || true)
	held=$(grep "MKINSTANCE: vmcore holds" "$logdir/$name.log" || true)
	if [ "$out" = 2 ] && [ -z "$held" ]; then
		pass crash_vmcore_leaves_out_instances
	else
		fail crash_vmcore_leaves_out_instances "$out of the pool and the shared area left out of /proc/vmcore; ${held:-none held}"
	fi
fi

# Device accesses, from QEMU's trace (qemu/run.sh, MK_QEMU_IOTRACE=1).
# The host's init writes 0x4d, 0x4b ("MK") to port 0x80 once CPU 1 is
# offline, and "MS" once the start call returned.  From the first marker on,
# CPUs 1 and 3 are the instance's: each may touch its own local APIC and
# the instance's UART (COM2, 0x2f8-0x2ff), nothing else, not the 8259s,
# the PIT, the IO-APIC, HPET, RTC/CMOS, i8042, PCI configuration space or
# COM1, and they may send IPIs only to the instance's CPUs (among them
# the INIT and STARTUP with which the instance's kernel brings up CPU 3,
# counted), but for message doorbells: MULTIKERNEL_VECTOR (0xea), fixed,
# to a host CPU (the one instance 1's doorbell_cpu names: APIC id 0, then
# CPU 2's and another while the host moves it).  The host may send CPU 1 INIT and
# STARTUP only between the two markers, CPU 3 never, and after them
# nothing but message doorbells; no device interrupt (an MSI or IO-APIC
# message, a write to 0xfeeXX00X naming the destination in bits 19:12) may
# go to them, and no IPI may be broadcast, by shorthand, to the xAPIC
# broadcast id or in logical mode, from the host's first INIT to CPU 1 on
# (before it, the host's all-but-self shorthand reaches its own offline
# CPUs, whose local APICs INIT then resets; such broadcasts are counted
# as early_broadcasts, so that the few microseconds from the start's
# claim of the CPUs to that INIT, which the start's grace period is there
# to keep free of them, go unaudited).  The audit ends at the marker "MX",
# before the host stops the instance and takes its CPUs back.  vCPU n has
# APIC id n in QEMU's default topology; the instance says which it has.
#
# The trace also orders the two kernels' doings without their clocks: the
# instance's tick lines are rebuilt from its writes to COM2's transmit
# register and counted after the host's marker "MR" (onlining CPU 1 was
# refused; the host then runs 3 s more) or, with --kdump, after the crash
# kernel's "MC" (its init started; it powers off 4 s later).  At least 5
# ticks must follow, the last of them 1 s or more after the marker by
# QEMU's clock, so that a backlog flushed at once cannot pass.  The
# marker's two bytes come from one CPU (the init pins itself for them).
# No other CPU may touch COM2 once CPU 1 is offline: not the host, not a
# crash kernel.
iotrace=$logdir/$name.iotrace
expect_line instance_apic_id "$ilog" \
	"multikernel instance: instance 1 on APIC id 1," \
	"the instance does not say it runs on APIC id 1, which the trace audit assumes"
audit=$(awk -v cpus="${apics[*]}" -v q="'" '
	BEGIN {
		split(cpus, t, " ")
		for (i in t)
			mine[t[i]] = 1
		boot = t[1]
	}
	function hex(s,   i, v) {
		v = 0
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function bad(what) {
		if (!(what in seen))
			order[n++] = what
		seen[what]++
	}
	# An ICR write by CPU c: the high half names the destination, the
	# low half sends
	function icr(c, addr, value,   lo, mode, logical, shorthand, dest,
		     doorbell) {
		if (addr == "0xfee00310") {
			high[c] = int(hex(value) / 16777216)
			return
		}
		lo = hex(value)
		mode = int(lo / 256) % 8
		logical = int(lo / 2048) % 2
		shorthand = int(lo / 262144) % 4
		dest = high[c]
		doorbell = shorthand == 0 && !logical && mode == 0 &&
			   lo % 256 == 234
		if ((c in mine) && doorbell && dest != 255 && !(dest in mine)) {
			db_out++
		} else if (c in mine) {
			if (shorthand >= 2 || (shorthand == 0 &&
			    (logical || !(dest in mine))))
				bad("instance IPI to APIC " dest " (ICR " value ")")
			else if (shorthand == 0 && dest != c &&
				 (mode == 5 || mode == 6))
				ap_wakeups++
		} else if (shorthand >= 2 || (shorthand == 0 &&
			   (logical || dest == 255))) {
			if (claimed)
				bad("host CPU " c " broadcast IPI (ICR " value ")")
			else
				early++
		} else if (shorthand == 0 && (dest in mine)) {
			if ((mode == 5 || mode == 6) && !started &&
			    dest == boot) {
				wakeups++
				claimed = 1
			}
			else if (doorbell && started)
				db_in++
			else
				bad("host CPU " c " IPI to the instance (ICR " value ")")
		}
	}
	# A message to the local APICs (MSI or IO-APIC) from CPU c, -1 for
	# a device
	function msi(c, addr, value,   dest) {
		dest = int(hex(addr) / 4096) % 256
		if ((dest in mine) || dest == 255)
			bad("interrupt to APIC " dest " (vector " hex(value) % 256 ")")
		else if (c in mine)
			bad("instance raised an interrupt to APIC " dest)
	}
	# Port 0x80: "M" and a letter from one CPU is a marker
	$1 == "memory_region_ops_write" && $7 == "0x80" && !($3 in mine) {
		if (prev[$3] == "0x4d" && $9 == "0x4b") {
			armed = 1
		} else if (prev[$3] == "0x4d" && armed && $9 == "0x53") {
			started = 1
		} else if (prev[$3] == "0x4d" && started && $9 == "0x58") {
			ended = 1
		} else if (prev[$3] == "0x4d" && started &&
			   ($9 == "0x52" || $9 == "0x43")) {
			after = sprintf("%c", hex($9))
			marked = $NF
		}
		prev[$3] = $9
		next
	}
	!armed || ended { next }
	$13 == q "serial" q && $7 ~ /^0x2f[89a-f]$/ && !($3 in mine) {
		bad("CPU " $3 " touched the instance UART at " $7)
		next
	}
	$1 == "memory_region_ops_write" && $7 ~ /^0xfee[0-9a-f][0-9a-f]00[0-9a-f]$/ {
		msi($3, $7, $9)
		next
	}
	$1 == "memory_region_ops_write" &&
	($7 == "0xfee00300" || $7 == "0xfee00310") {
		icr($3, $7, $9)
		next
	}
	!($3 in mine) { next }
	$13 == q "apic-msi" q && $7 ~ /^0xfee00[0-3][0-9a-f][0-9a-f]$/ { lapic++; next }
	$13 == q "serial" q && $7 ~ /^0x2f[89a-f]$/ {
		uart++
		if ($7 != "0x2f8" || !started)
			next
		if ($9 != "0xa") {
			line = line sprintf("%c", hex($9))
			next
		}
		if (after != "" && line ~ /^MKINSTANCE: tick /) {
			ticks++
			last = $NF
		}
		line = ""
		next
	}
	{ bad($13 " at " $7) }
	END {
		printf "armed=%d started=%d lapic=%d uart=%d wakeups=%d " \
			"ap_wakeups=%d early_broadcasts=%d doorbells=%d,%d " \
			"after=%s ticks=%d span=%.1f bad=%d",
			armed, started, lapic, uart, wakeups, ap_wakeups,
			early, db_out, db_in,
			after == "" ? "-" : after, ticks,
			ticks ? last - marked : 0, n
		for (i = 0; i < n; i++)
			printf "; %s x%d", order[i], seen[order[i]]
		printf "\n"
	}' "$iotrace" 2>&1 || true)
echo "INFO $name: device accesses: $audit"
case $audit in
"armed=1 started=1 "*" bad=0")
	if grep -Eq ' (lapic|uart|wakeups)=[01] ' <<< "$audit"; then
		fail instance_devices "the trace missed the instance's APIC, UART or start (x2APIC?): $audit"
	else
		pass instance_devices
	fi ;;
*) fail instance_devices "$audit" ;;
esac
# The instance's kernel woke its second CPU itself
if [[ $audit =~ \ ap_wakeups=([0-9]+)\  ]] &&
   { [ "${#apics[@]}" = 1 ] || [ "${BASH_REMATCH[1]}" -ge 2 ]; }; then
	pass instance_woke_its_cpus
else
	fail instance_woke_its_cpus "no INIT and STARTUP from the instance to its other CPU: $audit"
fi
# The instance rang the host at least for its READY
if [[ $audit =~ \ doorbells=([0-9]+),([0-9]+)\  ]] &&
   [ "${BASH_REMATCH[1]}" -ge 1 ]; then
	pass instance_doorbells
else
	fail instance_doorbells "no message doorbell from the instance to the host: $audit"
fi

if [ "$mode" = kdump ]; then
	check=instance_survives_host_panic marker=C
	what="the crash kernel's init started"
else
	check=instance_ticks_after_refusal marker=R
	what="onlining CPU 1 was refused"
fi
read -r ticks span < <(sed -n \
	"s/.* after=$marker ticks=\([0-9]*\) span=\([0-9.]*\) .*/\1 \2/p" \
	<<< "$audit") || true
if [ "${ticks:-0}" -ge 5 ] && awk -v s="${span:-0}" 'BEGIN { exit !(s >= 1) }'; then
	pass "$check"
else
	fail "$check" "${ticks:-no} instance ticks over ${span:-0} s after $what (marker M$marker), want at least 5 over 1 s or more: $audit"
fi

exit "$failed"
