# SPDX-License-Identifier: GPL-2.0
# Common paths and helpers, sourced by the other scripts.
#
# The kernel tree lives outside the repository: MK_WORKTREE (a git
# repository holding the imported tarball and the topic branch) and
# MK_BUILD (the O= build directories, one per configuration).

MK_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MK_WORKTREE=${MK_WORKTREE:-$(dirname "$MK_REPO")/$(basename "$MK_REPO")-linux}
MK_BUILD=${MK_BUILD:-$MK_WORKTREE-build}
MK_TARBALL=${MK_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
MK_BASE_BRANCH=base
MK_TOPIC_BRANCH=topic
# The host kernel every check and test builds: the debug options are in
# it, so that lockdep and friends watch every test rather than a copy of
# some (a build of each would cost a cold build more).
MK_HOST_CONFIG="base multikernel kunit debug"
# QEMU 10 from Debian's bookworm-backports, unpacked beside the builds
# (scripts/deps.sh) rather than installed over Debian 12's QEMU 7.2: its
# TCG emulates x2APIC, which the spawn test's x2APIC run needs.
MK_QEMU10_DIR=${MK_QEMU10_DIR:-$MK_BUILD/qemu10}
MK_QEMU10=$MK_QEMU10_DIR/usr/bin/qemu-system-x86_64

# The import commit is made deterministic, so that the base-commit id in
# exported patches only changes when the tarball does.
MK_IMPORT_NAME="multikernel import"
MK_IMPORT_EMAIL="import@multikernel.invalid"

# The neutral identity topic/'s own patches carry (From: and
# Signed-off-by:).  It is no one's: make send-dry replaces it with the git
# identity of whoever runs it.
MK_AUTHOR_NAME="Multikernel Team"
MK_AUTHOR_EMAIL="team@multikernel.invalid"

die() {
	echo "error: $*" >&2
	exit 1
}

info() {
	echo ">> $*"
}

# git in the worktree
wt() {
	git -C "$MK_WORKTREE" "$@"
}

# Options shared by export and status, so both render the series the
# same way.
mk_format_patch() {
	local out=$1 tip_date

	# The cover letter carries the committer's date: take the newest
	# patch's, so that the same branch always exports the same files.
	# Blob ids are abbreviated to 12 digits, which no other object in
	# a repository shares in practice: git's shortest unique prefix
	# would depend on what else the repository holds.
	tip_date=$(wt log -1 --format=%aD "$MK_TOPIC_BRANCH")
	GIT_COMMITTER_DATE="$tip_date" \
	GIT_COMMITTER_NAME="$(wt log -1 --format=%an "$MK_TOPIC_BRANCH")" \
	GIT_COMMITTER_EMAIL="$(wt log -1 --format=%ae "$MK_TOPIC_BRANCH")" \
		wt format-patch --quiet --cover-letter --cover-from-description=auto \
		--zero-commit --no-signature --abbrev=12 --base="$MK_BASE_BRANCH" \
		-o "$out" "$MK_BASE_BRANCH..$MK_TOPIC_BRANCH"
}
