#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Import Debian's linux-source-6.12 tarball into the kernel worktree (outside
# the repository) and apply topic/ on a fresh topic branch.
#
#   scripts/rebase.sh            import if needed, (re)apply topic/
#   MK_FORCE=1 scripts/rebase.sh also when the worktree has unexported work
#
# MK_TARBALL names another kernel tarball (any compression tar reads) and
# MK_TARBALL_VERSION its version, which is otherwise the installed
# linux-source-6.12 package's.
#
# Idempotent: an import that is already there is reused.  When Debian moves
# 6.12.x, the new tarball becomes a new base commit and every patch is
# reported as applied, applied with 3-way, or failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ensure_tarball() {
	[ -f "$MK_TARBALL" ] && return
	info "installing linux-source-6.12"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source-6.12
	[ -f "$MK_TARBALL" ] || die "$MK_TARBALL still missing"
}

tarball_version() {
	if [ -n "${MK_TARBALL_VERSION:-}" ]; then
		echo "$MK_TARBALL_VERSION"
		return
	fi
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		stat -c %Y "$MK_TARBALL"
}

# Make the import commit for $1 (a version string): the whole tarball as one
# root commit with fixed identity and dates.
import_tarball() {
	local ver=$1 tag=$2

	info "importing $MK_TARBALL ($ver) into $MK_WORKTREE"
	mkdir -p "$MK_WORKTREE"
	if [ ! -d "$MK_WORKTREE/.git" ]; then
		git init -q -b "$MK_BASE_BRANCH" "$MK_WORKTREE"
		wt config user.name "$MK_IMPORT_NAME"
		wt config user.email "$MK_IMPORT_EMAIL"
		wt config gc.auto 0
	fi
	wt checkout -q --orphan "import-tmp"
	wt rm -rq --cached . 2>/dev/null || true
	find "$MK_WORKTREE" -mindepth 1 -maxdepth 1 ! -name .git \
		-exec rm -rf {} +
	tar -xf "$MK_TARBALL" -C "$MK_WORKTREE" --strip-components=1
	# Debian's top-level .gitignore ends in "/*": force-add everything.
	wt add -f -A .
	GIT_AUTHOR_NAME="$MK_IMPORT_NAME" GIT_AUTHOR_EMAIL="$MK_IMPORT_EMAIL" \
	GIT_COMMITTER_NAME="$MK_IMPORT_NAME" \
	GIT_COMMITTER_EMAIL="$MK_IMPORT_EMAIL" \
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		wt commit -q --no-verify -m "Import Debian linux-source-6.12 $ver"
	wt tag -f "$tag" >/dev/null
	wt branch -f "$MK_BASE_BRANCH" "$tag"
	wt checkout -q "$MK_BASE_BRANCH"
	wt branch -D "import-tmp" >/dev/null
}

# The cover letter lives in topic/; keep it as the branch description so
# that export regenerates it.
set_description() {
	local cover=$1 desc

	desc=$(awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
		insubj && /^[ \t]/ { sub(/^[ \t]+/, " "); subj = subj $0; next }
		{ insubj = 0 }
		subj != "" && !body && /^$/ { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { text = text $0 "\n" }
		END { printf "%s\n\n%s", subj, text }' "$cover")
	wt config "branch.$MK_TOPIC_BRANCH.description" "$desc"
}

apply_topic() {
	local p name failed=0
	local -a patches=()

	for p in "$MK_REPO"/topic/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$p" ] || continue
		case $(basename "$p") in 0000-cover-letter.patch) continue ;; esac
		patches+=("$p")
	done

	wt checkout -q -B "$MK_TOPIC_BRANCH" "$MK_BASE_BRANCH"
	if [ -f "$MK_REPO/topic/0000-cover-letter.patch" ]; then
		set_description "$MK_REPO/topic/0000-cover-letter.patch"
	fi
	for p in "${patches[@]}"; do
		name=$(basename "$p")
		if wt am -q --keep-cr "$p" >/dev/null 2>&1; then
			echo "applied            $name"
			continue
		fi
		wt am --abort >/dev/null 2>&1 || true
		if wt am -q -3 --keep-cr "$p" >/dev/null 2>&1; then
			echo "applied with 3-way $name"
			continue
		fi
		wt am --abort >/dev/null 2>&1 || true
		echo "failed             $name"
		failed=1
		break
	done
	[ "$failed" = 0 ] || die "conflict: fix $name in $MK_WORKTREE, then make export"
	info "topic branch: ${#patches[@]} patches on $(wt describe --tags --always "$MK_BASE_BRANCH")"
}

main() {
	local ver tag

	command -v git >/dev/null || die "git is missing"
	ensure_tarball
	ver=$(tarball_version)
	tag="import/$(echo "$ver" | tr '~:' '__')"

	if [ -d "$MK_WORKTREE/.git" ] && [ "${MK_FORCE:-0}" != 1 ] &&
	   wt rev-parse -q --verify "$MK_TOPIC_BRANCH" >/dev/null; then
		"$MK_REPO/scripts/status.sh" >/dev/null ||
			die "$MK_WORKTREE has work that topic/ lacks: make export first (or MK_FORCE=1)"
	fi

	if [ -d "$MK_WORKTREE/.git" ] &&
	   wt rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		info "base $tag already imported"
		wt am --abort >/dev/null 2>&1 || true
		wt checkout -q -f --detach "$tag"
		wt branch -f "$MK_BASE_BRANCH" "$tag"
	else
		import_tarball "$ver" "$tag"
	fi
	apply_topic
}

main "$@"
