#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the worktree's topic branch back into topic/.  Exporting twice
# without changes gives no diff.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$MK_WORKTREE/.git" ] || die "no worktree at $MK_WORKTREE (make rebase)"
if [ -n "$(wt status --porcelain --untracked-files=no)" ] ||
   [ -n "$(wt ls-files --others | head -n 1)" ]; then
	wt status --short --untracked-files=no
	wt ls-files --others | sed 's/^/?? /'
	die "commit (git add -f for new files) in $MK_WORKTREE before exporting"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk_format_patch "$tmp"
rm -f "$MK_REPO"/topic/*.patch
cp "$tmp"/*.patch "$MK_REPO/topic/"
info "exported $(ls "$MK_REPO"/topic/*.patch | wc -l) files to topic/"
