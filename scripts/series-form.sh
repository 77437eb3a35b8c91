#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Is a directory of format-patch files a posting rather than a log?
#
#   scripts/series-form.sh [DIR]     (default: the repository's topic/)
#
# A fix goes into the patch it fixes (git commit --fixup, then git rebase
# -i --autosquash in the worktree), so no patch's subject may start with
# fixup!, squash! or amend!.  Every patch is signed off, and a
# Co-developed-by: is followed by its author's Signed-off-by:, and the
# cover letter's text is at most 150 lines.  Prints
# one line per problem and exits 1 if there is any.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:-$MK_REPO/topic}
problems=0
problem() {
	echo "$1: $2"
	problems=$((problems + 1))
}

shopt -s nullglob
patches=("$dir"/[0-9][0-9][0-9][0-9]-*.patch)
[ "${#patches[@]}" -gt 0 ] || die "no patches in $dir"
for p in "${patches[@]}"; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	name=$(basename "$p")
	# The subject as one line: format-patch folds long ones
	subject=$(sed -n '/^Subject: /,/^[^ ]/p' "$p" | sed '$d' |
		tr -d '\n' | sed 's/^Subject: \(\[[^]]*\] \)\?//')
	case $subject in
	fixup!* | squash!* | amend!*)
		problem "$name" "\"$subject\": fold it into the patch it fixes" ;;
	esac
	# The commit message: up to the "---" before the diffstat
	msg=$(sed -n '/^$/,/^---$/p' "$p")
	grep -q '^Signed-off-by: ' <<< "$msg" ||
		problem "$name" "no Signed-off-by:"
	if grep -A 1 '^Co-developed-by: ' <<< "$msg" |
		awk '/^Co-developed-by: / { who = substr($0, 18); next }
		     who != "" && $0 != "Signed-off-by: " who { bad = 1 }
		     { who = "" }
		     END { exit !bad }'; then
		problem "$name" "a Co-developed-by: not followed by its Signed-off-by:"
	fi
done
# The cover letter's own text (up to the shortlog) fits on a screenful
# or three: the design is in the patches and their documentation.
cover=$dir/0000-cover-letter.patch
if [ -e "$cover" ]; then
	n=$(sed -n '/^$/,$p' "$cover" |
	    sed -n '/^[^ ].* ([0-9]*):$/q;p' | wc -l)
	[ "$n" -le 150 ] ||
		problem 0000-cover-letter.patch "$n lines before the shortlog, more than 150"
fi
[ "$problems" = 0 ] || exit 1
