#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build one kernel of the worktree out of tree:
#
#   scripts/build.sh NAME FRAGMENT...    ->  $MK_BUILD/NAME/arch/x86/boot/bzImage
#
# The configuration is tinyconfig with the kconfig/ fragments merged on top;
# every option the fragments ask for (the last fragment that names one
# wins) must survive olddefconfig, unless MK_KCONFIG_STRICT=0 (for
# bisecting patches that predate an option).
# Builds are incremental and go through ccache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 NAME FRAGMENT..."
name=$1
shift
out=$MK_BUILD/$name
[ -d "$MK_WORKTREE/.git" ] || die "no worktree at $MK_WORKTREE (make rebase)"
mkdir -p "$out"

frags=()
for f in "$@"; do
	frags+=("$MK_REPO/kconfig/$f.config")
	[ -f "${frags[-1]}" ] || die "no fragment kconfig/$f.config"
done

cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
# Paths relative to the worktree's parent, so that another clone of the
# repository (CI's) finds what this one compiled
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$MK_WORKTREE")}
export KBUILD_BUILD_TIMESTAMP="2000-01-01"
export KBUILD_BUILD_USER=multikernel KBUILD_BUILD_HOST=qemu
kmake() {
	make -s -C "$MK_WORKTREE" O="$out" CC="$cc" -j"${MK_JOBS:-$(( $(nproc) + 1 ))}" "$@"
}

# Reconfigure only when a fragment or the tree's Kconfig files changed
# (not on every commit: the bisect build would pay half a minute for each),
# or the check of the fragments' options: a strict build after a lenient
# one in the same directory (the host's, after the bisect) checks again.
stamp=$out/.mk-config-stamp
want=$({ cat "${frags[@]}"
	 wt ls-files -s -- '*Kconfig*' 'kernel/configs/*' 'arch/x86/configs/*'
	 echo "strict=${MK_KCONFIG_STRICT:-1}"
       } | sha1sum | cut -c1-40)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	kmake tinyconfig >/dev/null
	(cd "$out" && KCONFIG_CONFIG=.config \
		"$MK_WORKTREE/scripts/kconfig/merge_config.sh" -m -O "$out" \
		.config "${frags[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	# What the fragments ask for, the last one to name an option winning
	wanted=$(awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { o = $2 }
		o != "" { if (!(o in want)) order[n++] = o; want[o] = $0; o = "" }
		END { for (i = 0; i < n; i++) print want[order[i]] }
	' "${frags[@]}")
	missing=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$out/.config" ||
				{ echo "kconfig: $line did not survive olddefconfig" >&2; missing=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$out/.config" ||
				{ echo "kconfig: $opt is set" >&2; missing=1; } ;;
		esac
	done <<< "$wanted"
	[ "$missing" = 0 ] || [ "${MK_KCONFIG_STRICT:-1}" = 0 ] || die "configuration $name is not what kconfig/ asks for"
	echo "$want" > "$stamp"
fi
kmake bzImage headers
echo "$out/arch/x86/boot/bzImage"
