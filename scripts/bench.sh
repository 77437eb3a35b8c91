#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: how long an instance takes from the host's start command to
# its init, against a cold QEMU boot of the same kernel and initramfs
# (qemu/bench.py; medians of MK_BENCH_RUNS rounds, 5 by default), the
# message round trip and burst figures of one more boot, and the first
# against the fifteenth of fifteen instances started one after another.  Prints figures;
# asserts nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The host without the test host's debug options (lockdep, kmemleak,
# debug objects), which would slow its part of a spawn as no production
# host's; KUnit for the message bench in debugfs
info "building the host and the instance kernel (incremental)"
"$MK_REPO/scripts/build.sh" bench-host base multikernel kunit >/dev/null
"$MK_REPO/scripts/build.sh" instance base small instance >/dev/null
MK_LOGDIR=$MK_BUILD/bench "$MK_REPO/qemu/spawn.sh" --bench \
	--instance "$MK_BUILD/instance" "$MK_BUILD/bench-host" bench

# The first and the last of fifteen instances running at once on QEMU's
# 16-CPU machine: does a start take longer with more of them running?
# (goal: the fifteenth within 1.5x of the first)
info "fifteen instances at once (qemu/spawn.sh --many)"
many=$MK_BUILD/bench/bench-many.results
if MK_MANY_BENCH=1 MK_LOGDIR=$MK_BUILD/bench "$MK_REPO/qemu/spawn.sh" \
	--many --instance "$MK_BUILD/instance" "$MK_BUILD/bench-host" \
	bench-many > "$MK_BUILD/bench/bench-many.out" 2>&1; then
	sed -n 's/.*MKSPAWN: ready_ms first=\([0-9]*\) last=\([0-9]*\) of \([0-9]*\).*/\1 \2 \3/p' \
		"$many" | awk '$1 > 0 {
		printf "start to READY: 1st instance %d ms, %dth %d ms (%.2fx)\n",
			$1, $3, $2, $2 / $1 }'
else
	echo "the many-instances run failed ($MK_BUILD/bench/bench-many.out): no figure"
fi
