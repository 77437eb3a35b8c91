#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make send-dry: write the series as mail files with b4 (b4 send -o DIR),
# addressed as .b4-config says.  Nothing is sent.  The series is a rework
# of an RFC that was posted as v1: it goes out as [RFC PATCH v2 NN/MM]
# (MK_SERIES_REVISION), from the patches' author rather than the
# worktree's import identity.
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

cp "$MK_REPO/.b4-config" "$MK_WORKTREE/.b4-config"
trap 'rm -f "$MK_WORKTREE/.b4-config"; wt checkout -q "$MK_TOPIC_BRANCH"' EXIT
wt config b4.prep-cover-strategy commit
# Mail is written to files, never sent; b4 still wants an SMTP setting.
wt config sendemail.smtpserver /bin/false
wt branch -D "$branch" >/dev/null 2>&1 || true
wt checkout -q -b "$branch" "$MK_TOPIC_BRANCH"
# b4 sends as the configured user: the patches' author, for b4 alone
author=$(wt log -1 --format='%an' "$MK_TOPIC_BRANCH")
email=$(wt log -1 --format='%ae' "$MK_TOPIC_BRANCH")
export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$author"
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
info "$(ls "$out" | wc -l) mail files in $out"
