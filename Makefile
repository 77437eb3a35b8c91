# SPDX-License-Identifier: GPL-2.0
#
# Multikernel for Linux 6.12: the topic branch, its checks and its tests.
# The kernel tree lives outside this repository (MK_WORKTREE, default
# ../<repo>-linux); scripts/lib.sh has the paths.

SHELL := /bin/bash

.PHONY: help deps rebase export status build check test demo shell bench send-dry

help:
	@echo "make demo      a host in QEMU starts a second kernel and talks to it"
	@echo "make shell     the same QEMU machine, at the host's shell: try it"
	@echo "make test      make check, then every QEMU test; 'N passed, M failed'"
	@echo "make check     checkpatch, bisect build, sparse, coccinelle, Kconfig on/off"
	@echo "make bench     spawn against cold boot, messages: bench/results.md"
	@echo "make rebase    import the Debian 6.12 tarball, apply topic/"
	@echo "make export    write the worktree's topic branch back into topic/"
	@echo "make status    does topic/ hold all the worktree's work?"
	@echo "make send-dry  the series as mail files (b4 send -o, nothing sent)"

deps:
	@scripts/deps.sh

rebase: deps
	@scripts/rebase.sh

export:
	@scripts/export.sh

status:
	@scripts/status.sh

build: rebase
	@. scripts/lib.sh && scripts/build.sh host $$MK_HOST_CONFIG

check: rebase
	@scripts/check.sh

test: rebase
	@scripts/test.sh

demo: rebase
	@scripts/demo.sh

shell: rebase
	@scripts/demo.sh --shell

bench: rebase
	@scripts/bench.sh

send-dry: rebase
	@scripts/send-dry.sh
