#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: how long an instance takes from the host's start command to
# its init, against a cold QEMU boot of the same kernel and initramfs
# (qemu/bench.py; medians of MK_BENCH_RUNS rounds, 5 by default), and the
# message round trip and burst figures of one more boot.  Prints figures;
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
