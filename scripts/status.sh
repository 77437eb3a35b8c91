#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the worktree path and whether topic/ holds all of its work.  Exits 1
# when the worktree has commits, edits or new files that topic/ lacks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

echo "worktree: $MK_WORKTREE"
if [ ! -d "$MK_WORKTREE/.git" ]; then
	echo "no worktree yet (make rebase creates it)"
	exit 0
fi
wt rev-parse -q --verify "$MK_TOPIC_BRANCH" >/dev/null ||
	{ echo "no topic branch"; exit 0; }

dirty=0
# The build is out of tree (O=), so any untracked file is new work.  Ask
# without exclude rules: Debian's .gitignore hides every path.
if [ -n "$(wt status --porcelain --untracked-files=no)" ] ||
   [ -n "$(wt ls-files --others | head -n 1)" ]; then
	echo "uncommitted changes in the worktree:"
	wt status --short --untracked-files=no | head -n 20
	wt ls-files --others | sed 's/^/?? /' | head -n 20
	dirty=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk_format_patch "$tmp"
if ! diff -r -q "$tmp" "$MK_REPO/topic" >/dev/null 2>&1; then
	echo "topic branch differs from topic/ (make export):"
	diff -r -q "$tmp" "$MK_REPO/topic" | sed "s|$tmp|worktree|; s|$MK_REPO/||" | head -n 20 || true
	dirty=1
fi
[ "$dirty" = 0 ] && echo "topic/ holds all of $MK_TOPIC_BRANCH ($(wt rev-list --count "$MK_BASE_BRANCH..$MK_TOPIC_BRANCH") patches)"
exit "$dirty"
