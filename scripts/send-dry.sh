#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make send-dry: write the series as mail files with b4 (b4 send -o DIR),
# addressed as .b4-config says.  Nothing is sent.  The series is a rework
# of an RFC that was posted as v1: it goes out as [PATCH RFC v2 NN/MM]
# (MK_SERIES_REVISION).
#
# The mails are signed off by whoever runs this: topic/'s neutral
# identity (MK_AUTHOR_NAME, MK_AUTHOR_EMAIL) becomes the git identity of
# the repository (user.name, user.email), as author and in the
# Signed-off-by: line; other authors and their trailers stay.  Refuses
# to run with no identity or an .invalid address, which the DCO does not
# accept.
#
# b4 needs a prep-enrolled branch; enrolling rewrites the branch, so a
# throw-away copy of the topic branch is enrolled instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$MK_BUILD/send-dry
branch=b4-send-dry
revision=${MK_SERIES_REVISION:-2}
command -v b4 >/dev/null || die "b4 is missing (make deps)"
[ -z "$(wt status --porcelain --untracked-files=no)" ] ||
	die "commit the worktree's changes first"

name=$(git -C "$MK_REPO" config user.name || true)
email=$(git -C "$MK_REPO" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity to sign the mails off with: git config user.name, user.email"
# (domains are case-insensitive: .INVALID is as invalid)
case ${email,,} in
*.invalid | *@invalid | *@*.invalid.* | *@localhost*)
	die "$email cannot sign off a patch (the DCO needs a real address): git config user.email" ;;
esac

cp "$MK_REPO/.b4-config" "$MK_WORKTREE/.b4-config"
trap 'rm -f "$MK_WORKTREE/.b4-config"; wt checkout -q "$MK_TOPIC_BRANCH"' EXIT
wt config b4.prep-cover-strategy commit
# Mail is written to files, never sent; b4 still wants an SMTP setting.
wt config sendemail.smtpserver /bin/false
wt branch -D "$branch" >/dev/null 2>&1 || true
wt checkout -q -b "$branch" "$MK_TOPIC_BRANCH"

# The neutral identity becomes the sender's, as author and sign-off; a
# patch without the neutral sign-off gets the sender's at the end.
export MK_AUTHOR_NAME MK_AUTHOR_EMAIL MK_SENDER_NAME="$name" MK_SENDER_EMAIL="$email"
(cd "$MK_WORKTREE" && FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f \
	--env-filter '
		if [ "$GIT_AUTHOR_EMAIL" = "$MK_AUTHOR_EMAIL" ]; then
			GIT_AUTHOR_NAME=$MK_SENDER_NAME
			GIT_AUTHOR_EMAIL=$MK_SENDER_EMAIL
		fi
		GIT_COMMITTER_NAME=$MK_SENDER_NAME
		GIT_COMMITTER_EMAIL=$MK_SENDER_EMAIL' \
	--msg-filter '
		grep -vxF "Signed-off-by: $MK_AUTHOR_NAME <$MK_AUTHOR_EMAIL>" |
		git interpret-trailers --if-exists addIfDifferent \
			--trailer "Signed-off-by: $MK_SENDER_NAME <$MK_SENDER_EMAIL>"' \
	"$MK_BASE_BRANCH..$branch" >/dev/null)

export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$name"
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$email"
(cd "$MK_WORKTREE" && b4 prep --enroll "$MK_BASE_BRANCH" >/dev/null)
(cd "$MK_WORKTREE" && b4 prep --set-prefixes RFC >/dev/null &&
	b4 prep --force-revision "$revision" >/dev/null)
rm -rf "$out"
mkdir -p "$out"
# The cover letter is the topic branch's description (topic/0000-*).
wt config "branch.$MK_TOPIC_BRANCH.description" > "$out.cover"
printf '#!/bin/sh\ncp "%s" "$1"\n' "$out.cover" > "$out.editor"
chmod +x "$out.editor"
(cd "$MK_WORKTREE" && EDITOR="$out.editor" GIT_EDITOR="$out.editor" \
	b4 prep --edit-cover >/dev/null)
rm -f "$out.editor" "$out.cover"
(cd "$MK_WORKTREE" && b4 send --no-sign -o "$out")
if grep -E "^(From|Signed-off-by|Co-developed-by): .*$MK_AUTHOR_EMAIL" \
	"$out"/* >&2; then
	die "the mail lines above still carry $MK_AUTHOR_EMAIL"
fi
info "$(ls "$out" | wc -l) mail files in $out, signed off by $name <$email>"
