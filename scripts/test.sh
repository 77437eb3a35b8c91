#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: make check, then the QEMU tests, then one closing line
# "N passed, M failed".  Exits non-zero on any failure.
#
# Every host kernel is MK_HOST_CONFIG (scripts/lib.sh): CONFIG_MULTIKERNEL=y
# with KUnit and the debug options (lockdep, DEBUG_ATOMIC_SLEEP,
# DEBUG_LIST, DEBUG_OBJECTS, kmemleak).
#
#   series  make check refuses a fixup! patch and a cover letter over 150
#           lines; make send-dry signs every
#           mail off as whoever runs it, refuses an .invalid or no address
#   bench-logic  make bench on a machine too loaded to measure every
#           round, without QEMU: rounds retried, dropped and counted, the
#           figures measured still written with their pictures
#           (qemu/bench-check.py)
#   host    KUnit suite and the ABI from user space (the kernel tree's
#           tools/testing/selftests/multikernel, run by qemu/init/host.c),
#           on 4 CPUs whose APIC ids have a hole (0, 1, 2, 4); kmemleak
#           scanned at the end
#   fixed   the pool and the shared area at fixed addresses
#   nopool  CONFIG_MULTIKERNEL=y without a pool
#   nomk    CONFIG_MULTIKERNEL=n: nothing of it is there
#   lockdown  booted with lockdown=integrity: no instance loads or starts;
#           its shared area at multikernel_shared_memory=, where the
#           pool (not placed by the command line) would otherwise go
#   nosmt   two cores of two threads with nosmt: no instance on a thread
#           SMT control keeps offline, instances have whole cores (with
#           SMT control on as well); on an Intel CPU without the
#           hypervisor bit, so that the microcode loader runs, no late
#           microcode load while instances run
#   kexec   plain kexec, kexec_file, crash load/unload and kdump still work
#   spawn   end to end: the host starts a kernel built only to be an
#           instance (kconfig/instance.config) on CPUs 1 and 3 of four,
#           and both run, each on its own devices (qemu/spawn.sh); the
#           same with boot parameters built in user space (kexec_load(),
#           one CPU) and on an x2APIC machine (QEMU 10) whose CPUs 2 and
#           3 have APIC ids 256 and 257; then the host starts its own
#           bzImage and panics into kdump under it
#   lifecycle  20 cycles of load, start, stop (graceful and forced), CPU
#           back, unload, with leak checks, the scrub of instance memory
#           and the stop call's refusals (qemu/init/lifecycle.c)
#   many    fifteen instances at once, one on each CPU but the host's of
#           sixteen, each answering messages, then all stopped and
#           unloaded with nothing leaked (qemu/init/many.c)
#   story   make shell's machine driven through tmux as a person would:
#           qemu/shell.txt's commands typed at the host's shell and the
#           instance's (load, start, console, messages, stop, unload),
#           each answer checked; they are the ones README.md lists, and
#           make demo shows the same run (qemu/story.sh)
#   console the host starts its own bzImage as an instance without a UART,
#           its console over messages: tmux types "multikernel console"
#           and a command for the instance's shell into the host's
#           terminal, reads the answer, detaches; the console is read
#           after the instance's crash (qemu/console.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

logs=$MK_BUILD/logs
results=$MK_BUILD/results
mkdir -p "$logs"
: > "$results"
started=$(date +%s)

# Run a step that prints PASS/FAIL lines; a step that fails without saying
# why still counts as a failure.
step() {
	local name=$1 rc=0
	shift
	echo ">> $name"
	"$@" > "$logs/$name.out" 2>&1 || rc=$?
	grep -E '^(PASS|FAIL|INFO) ' "$logs/$name.out" | tee -a "$results" || true
	if [ "$rc" != 0 ] && ! grep -q '^FAIL ' "$logs/$name.out"; then
		echo "FAIL $name: exited $rc ($logs/$name.out)" | tee -a "$results"
		tail -n 20 "$logs/$name.out"
	fi
}

build() {
	local name=$1 t
	shift
	t=$(date +%s)
	if ! "$MK_REPO/scripts/build.sh" "$name" "$@" > "$logs/build-$name.log" 2>&1; then
		echo "FAIL build:$name: ($logs/build-$name.log)" | tee -a "$results"
		tail -n 20 "$logs/build-$name.log"
		return 1
	fi
	echo "PASS build:$name" | tee -a "$results"
	echo "INFO build:$name: $(( $(date +%s) - t )) s" | tee -a "$results"
}

# The host tests' init runs the kernel tree's multikernel selftest
boot() {
	local name=$1 kbuild=$2 cmdline=$3

	"$MK_REPO/qemu/initramfs.sh" --selftest "$logs/$name.selftest" "$kbuild"
	"$MK_REPO/qemu/initramfs.sh" "$logs/$name.cpio" "$kbuild" \
		"$MK_REPO/qemu/init/host.c" \
		"file /multikernel_test $logs/$name.selftest 0755 0 0"
	MK_LOGDIR=$logs "$MK_REPO/qemu/run.sh" "$name" \
		"$kbuild/arch/x86/boot/bzImage" "$logs/$name.cpio" "$cmdline"
}

# The posting's tools: make check refuses a fixup patch, make send-dry
# signs the mails off as whoever runs it and refuses an address the DCO
# does not accept.
series_tools() {
	local d sender="Test Sender <sender@example.org>" n m out out2 out3
	local -a as_sender=(GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name
		GIT_CONFIG_VALUE_0="Test Sender" GIT_CONFIG_KEY_1=user.email)

	d=$(mktemp -d)
	cp "$MK_REPO"/topic/0000-*.patch "$MK_REPO"/topic/0001-*.patch \
		"$MK_REPO"/topic/0002-*.patch "$d/"
	sed -i '0,/^\(Subject: \[PATCH [0-9/]*\] \)/s//\1fixup! /' "$d"/0002-*.patch
	# (the scripts fail as they should: their status is not the test's)
	out=$("$MK_REPO/scripts/series-form.sh" "$d" 2>&1 || true)
	if grep -q '^0002-.*fixup!.*fold it' <<< "$out" &&
	   ! grep -q '^0000-' <<< "$out"; then
		echo "PASS series_form_refuses_fixup"
	else
		echo "FAIL series_form_refuses_fixup: a fixup! patch passed, or the cover letter did not ($out)"
	fi
	# a cover letter 200 lines longer than topic/'s
	awk 'NR == 8 { for (i = 0; i < 200; i++) print "more text" } { print }' \
		"$MK_REPO"/topic/0000-*.patch > "$d/long"
	mv "$d/long" "$d"/0000-*.patch
	out=$("$MK_REPO/scripts/series-form.sh" "$d" 2>&1 || true)
	if grep -q '^0000-cover-letter.patch: .*more than 150' <<< "$out"; then
		echo "PASS series_form_refuses_long_cover"
	else
		echo "FAIL series_form_refuses_long_cover: a cover letter of $(( $(sed -n '/^$/,$p' "$MK_REPO"/topic/0000-*.patch | sed -n '/^[^ ].* ([0-9]*):$/q;p' | wc -l) + 200 )) lines passed"
	fi
	rm -rf "$d"

	out=$(env "${as_sender[@]}" GIT_CONFIG_VALUE_1=sender@multikernel.invalid \
		"$MK_REPO/scripts/send-dry.sh" 2>&1 || true)
	out2=$(env "${as_sender[@]}" GIT_CONFIG_VALUE_1= \
		"$MK_REPO/scripts/send-dry.sh" 2>&1 || true)
	out3=$(env "${as_sender[@]}" GIT_CONFIG_VALUE_1=sender@Example.INVALID \
		"$MK_REPO/scripts/send-dry.sh" 2>&1 || true)
	if grep -q 'cannot sign off' <<< "$out" &&
	   grep -q 'no git identity' <<< "$out2" &&
	   grep -q 'cannot sign off' <<< "$out3"; then
		echo "PASS send_dry_refuses_identity"
	else
		echo "FAIL send_dry_refuses_identity: wrote mails from .invalid, .INVALID or no address"
	fi

	env "${as_sender[@]}" GIT_CONFIG_VALUE_1=sender@example.org \
		"$MK_REPO/scripts/send-dry.sh" || return 1
	n=$(ls "$MK_REPO"/topic/*.patch | wc -l)
	m=$(grep -L "^Signed-off-by: $sender\$" "$MK_BUILD"/send-dry/00*.eml |
		grep -vc '/0000-' || true)
	if [ "$(ls "$MK_BUILD"/send-dry/*.eml | wc -l)" = "$n" ] && [ "$m" = 0 ] &&
	   ! grep -q '^From: .*multikernel.invalid' "$MK_BUILD"/send-dry/*.eml &&
	   [ "$(grep -c '^Subject: \[PATCH RFC v2 [0-9]*/[0-9]*\]' \
		"$MK_BUILD"/send-dry/*.eml | grep -c ':1$')" = "$n" ]; then
		echo "PASS send_dry_signed_off: $n mails, each patch signed off by $sender"
	else
		echo "FAIL send_dry_signed_off: $m patch mails without the sender's sign-off, or a bad From:/Subject: ($MK_BUILD/send-dry)"
	fi
}

pool="multikernel_pool=128M"
# Two sockets of three cores, four present: APIC ids 0, 1, 2 and 4
topology="4,sockets=2,cores=3,maxcpus=6"

t=$(date +%s)
step check "$MK_REPO/scripts/check.sh"
echo "INFO check: $(( $(date +%s) - t )) s" | tee -a "$results"
step series series_tools
step bench-logic python3 "$MK_REPO/qemu/bench-check.py" "$logs/bench-logic"
if build host $MK_HOST_CONFIG; then
	# Two producers on two CPUs lose, duplicate and reorder nothing
	MK_QEMU_SMP=$topology MK_KUNIT_SUITE="multikernel multikernel_ring multikernel_unpack multikernel_start" \
	MK_KUNIT_EXPECT="mk_test_ring_producers: 2 producers: 10000 messages received, 0 out of order or bad" \
	MK_LOG_COUNTS="1 send: kernel 250 wrote an impossible index into its ring
1 instance 250 ready [0-9]+ ms after its start: Linux first,
1 instance 250 sent READY again: ignored
1 instance 250: machine check on its CPU of APIC id 7: bank 5 status 0xb100000000000000 
1 instance 250: machine check report of 3 bytes, not 64: dropped
1 instance 250: machine check report of version 2, not 1: dropped
1 instance 250: machine check report of bank 64, reserved 0x0: dropped
1 instance 250: machine check report of bank 5, reserved 0x1: dropped" \
		step boot-host \
		boot host "$MK_BUILD/host" "mktest=mk $pool"
	step boot-fixed boot fixed "$MK_BUILD/host" \
		"mktest=fixed nokaslr multikernel_pool=64M@512M multikernel_shared_memory=0x30000000"
	step boot-nopool boot nopool "$MK_BUILD/host" \
		"mktest=nopool multikernel_shared_memory=0x30000000"
	step boot-lockdown boot lockdown "$MK_BUILD/host" \
		"mktest=lockdown lockdown=integrity $pool multikernel_shared_memory=0x30000000"
	MK_QEMU_SMP="4,sockets=1,cores=2,threads=2" \
	MK_QEMU_CPU="max,vendor=GenuineIntel,family=6,model=85,stepping=7,hypervisor=off" \
		step boot-nosmt \
		boot nosmt "$MK_BUILD/host" "mktest=nosmt nosmt $pool"
	step boot-kexec "$MK_REPO/qemu/kexec-compat.sh" "$MK_BUILD/host" "$logs"
	if build instance base small instance; then
		kib() { size "$1/vmlinux" | awk 'NR == 2 { print int($4 / 1024) }'; }
		echo "INFO instance kernel: $(kib "$MK_BUILD/instance") KiB (text, data, bss), host $(kib "$MK_BUILD/host") KiB" |
			tee -a "$results"
		MK_LOGDIR=$logs step boot-spawn "$MK_REPO/qemu/spawn.sh" \
			--instance "$MK_BUILD/instance" "$MK_BUILD/host"
		MK_LOGDIR=$logs step boot-spawn-segments \
			"$MK_REPO/qemu/spawn.sh" --segments \
			--instance "$MK_BUILD/instance" "$MK_BUILD/host" \
			spawn-segments
		MK_LOGDIR=$logs step boot-spawn-x2apic \
			"$MK_REPO/qemu/spawn.sh" --x2apic \
			--instance "$MK_BUILD/instance" "$MK_BUILD/host" \
			spawn-x2apic
		MK_LOGDIR=$logs step boot-lifecycle \
			"$MK_REPO/qemu/spawn.sh" --lifecycle \
			--instance "$MK_BUILD/instance" "$MK_BUILD/host" \
			lifecycle
		MK_LOGDIR=$logs step boot-spawn-many \
			"$MK_REPO/qemu/spawn.sh" --many \
			--instance "$MK_BUILD/instance" "$MK_BUILD/host" \
			spawn-many
		MK_LOGDIR=$logs step boot-story "$MK_REPO/qemu/story.sh" \
			"$MK_BUILD/host" "$MK_BUILD/instance" story
	fi
	MK_LOGDIR=$logs step boot-spawn-kdump "$MK_REPO/qemu/spawn.sh" \
		--kdump "$MK_BUILD/host" spawn-kdump
	MK_LOGDIR=$logs step boot-spawn-mce "$MK_REPO/qemu/spawn.sh" \
		--mce "$MK_BUILD/host" spawn-mce
	MK_LOGDIR=$logs step boot-console "$MK_REPO/qemu/console.sh" \
		"$MK_BUILD/host" console
fi
if build nomk base small; then
	step boot-nomk boot nomk "$MK_BUILD/nomk" "mktest=nomk $pool"
fi

passed=$(grep -c '^PASS ' "$results" || true)
failed=$(grep -c '^FAIL ' "$results" || true)
echo
grep '^FAIL ' "$results" || true
echo "make test took $(( $(date +%s) - started )) s; logs in $logs"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
