#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: how long an instance takes from the host's start command to
# its init, against a cold QEMU boot of the same kernel and initramfs
# (qemu/bench.py; medians of MK_BENCH_RUNS rounds, 5 by default), the
# message figures of one more boot, a kernel update, and the first
# against the fifteenth of fifteen instances started one after another.
# Prints the figures and writes them, with their spread and two
# pictures, to bench/results.md (MK_BENCH_OUT: another directory).
# Asserts nothing; a round that cannot be measured on a loaded machine is
# tried again or dropped, and counted there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${MK_BENCH_OUT:-$MK_REPO/bench}
# The host without the test host's debug options (lockdep, kmemleak,
# debug objects), which would slow its part of a spawn as no production
# host's; KUnit for the message bench in debugfs
info "building the host and the instance kernel (incremental)"
"$MK_REPO/scripts/build.sh" bench-host base multikernel kunit >/dev/null
"$MK_REPO/scripts/build.sh" instance base small instance >/dev/null
about="$(wt rev-list --count "$MK_BASE_BRANCH..$MK_TOPIC_BRANCH") patches"
about+=" on $(wt log -1 --format=%s "$MK_BASE_BRANCH") (topic/ at $(git -C "$MK_REPO" log -1 --format=%h -- topic)),"
about+=" the host built from kconfig/ base, multikernel and kunit, the"
about+=" instance from base, small and instance"
MK_BENCH_OUT=$out MK_BENCH_ABOUT=$about MK_LOGDIR=$MK_BUILD/bench \
	"$MK_REPO/qemu/spawn.sh" --bench \
	--instance "$MK_BUILD/instance" "$MK_BUILD/bench-host" bench

# The first and the last of fifteen instances running at once on QEMU's
# 16-CPU machine: does a start take longer with more of them running?
# (goal: the fifteenth within 1.5x of the first)
info "fifteen instances at once (qemu/spawn.sh --many)"
many=$MK_BUILD/bench/bench-many.results
{
	echo
	echo "## Fifteen instances at once"
	echo
} >> "$out/results.md"
if MK_MANY_BENCH=1 MK_LOGDIR=$MK_BUILD/bench "$MK_REPO/qemu/spawn.sh" \
	--many --instance "$MK_BUILD/instance" "$MK_BUILD/bench-host" \
	bench-many > "$MK_BUILD/bench/bench-many.out" 2>&1 &&
   figures=$(sed -n 's/.*MKSPAWN: ready_ms first=\([0-9]*\) last=\([0-9]*\) of \([0-9]*\).*/\1 \2 \3/p' \
	"$many") && [ -n "$figures" ]; then
	read -r first last n <<< "$figures"
	awk -v f="$first" -v l="$last" -v n="$n" 'BEGIN {
		printf "start to READY: 1st instance %d ms, %dth %d ms (%.2fx)\n",
			f, n, l, l / f }'
	awk -v f="$first" -v l="$last" -v n="$n" 'BEGIN {
		print "QEMU with sixteen CPUs, an instance started on each of CPUs 1-15 one after another (one boot): start to READY in ms."
		print ""
		print "| the first | the fifteenth | ratio | goal |"
		print "|---|---|---|---|"
		printf "| %d | %d | %.2f | at most 1.5 |\n", f, l, l / f }' \
		>> "$out/results.md"
else
	echo "the many-instances run failed ($MK_BUILD/bench/bench-many.out): no figure"
	echo "Not measured: the run failed." >> "$out/results.md"
fi
info "results: $out/results.md"
