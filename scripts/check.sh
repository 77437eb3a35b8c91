#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the series as a maintainer would check it.
#
#   roundtrip   exporting the applied series gives topic/ back unchanged
#   series_form no fixup!/squash! patch, every patch signed off
#               (scripts/series-form.sh)
#   checkpatch  checkpatch.pl --strict on every patch: 0 errors, 0 warnings
#               (its verdict on a patch it checked before against the same
#               base is kept: MK_CHECKPATCH_CACHE)
#   bisect      every patch builds (the host configuration, which has the
#               debug options, incrementally in the host's build
#               directory, so that the last patch's build is the host's);
#               a patch whose tree was built before in the same
#               configuration is not built again (MK_BISECT_CACHE); a
#               patch that changes no file the kernel's build reads
#               (documentation, tools, selftests), after one built here,
#               compiles the tool and the selftest instead
#   sparse      no sparse warning on a line the series adds (C=2)
#   coccinelle  no report of the tree's semantic patches on such a line
#               (sparse's report on a tip and coccinelle's on a file
#               checked before are kept: MK_LINT_CACHE)
#   kconfig     CONFIG_MULTIKERNEL=n (base and small: kexec on) builds with
#               no multikernel symbol or section, and with the same symbols
#               as the unpatched tree in that configuration; =y builds
#   docs        Documentation/multikernel.rst and the .rst files the series
#               adds parse without a docutils warning; kernel-doc -Wall finds nothing in the C files and
#               headers the series adds
#
# Prints "PASS check:NAME" or "FAIL check:NAME: why" lines; exits 1 on a
# failure.  Needs the worktree on the exported topic branch (make rebase).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

failed=0
pass() { echo "PASS check:$1"; }
fail() { echo "FAIL check:$1: $2"; failed=1; }
out=$MK_BUILD/check
mkdir -p "$out"
# How long each part took, as an INFO line: where a run's time goes
t_part=$(date +%s)
took() {
	echo "INFO check_time:$1: $(( $(date +%s) - t_part )) s"
	t_part=$(date +%s)
}

[ -d "$MK_WORKTREE/.git" ] || die "no worktree (make rebase)"
if [ -n "$(wt status --porcelain --untracked-files=no)" ]; then
	die "the worktree has uncommitted changes: commit and export them first"
fi
topic=$(wt rev-parse "$MK_TOPIC_BRANCH")

# Lines the series adds, as "file:line", for sparse and coccinelle.
wt diff -U0 "$MK_BASE_BRANCH" "$topic" | awk '
	/^\+\+\+ b\// { file = substr($0, 7); next }
	/^@@/ {
		split($3, a, ",")
		start = substr(a[1], 2); n = (a[2] == "") ? 1 : a[2]
		for (i = 0; i < n; i++) print file ":" start + i
	}' | sort -u > "$out/added-lines"
mapfile -t cfiles < <(wt diff --name-only --diff-filter=AM "$MK_BASE_BRANCH" "$topic" -- '*.c')

only_added() {
	# Keep report lines "file:line:..." whose file:line the series added.
	awk -F: 'NR == FNR { added[$0] = 1; next }
		 ($1 ":" $2) in added' "$out/added-lines" -
}

# --- round trip: topic/ -> worktree -> topic/ gives the same files -------
if "$MK_REPO/scripts/status.sh" > "$out/status.log" 2>&1; then
	pass export_roundtrip
else
	fail export_roundtrip "exporting the worktree does not give topic/ back ($out/status.log)"
	cat "$out/status.log"
fi

# --- a posting, not a log -----------------------------------------------
if "$MK_REPO/scripts/series-form.sh" > "$out/series-form.log" 2>&1; then
	pass series_form
else
	fail series_form "$(head -n 3 "$out/series-form.log")"
fi

took roundtrip_series_form

# --- checkpatch ---------------------------------------------------------
# Before the bisect build: checkpatch insists on a kernel tree around it,
# and the bisect's checkouts make the top level vanish for a moment.
# spdxcheck.py wants Debian's python3 (python3-ply, python3-git).
# Its verdict on a patch depends on the patch and on the files of the
# tree it runs in (the tip's): checkpatch.pl and its lists, MAINTAINERS,
# the headers its CamelCase check reads.  Verdicts are kept, as the
# bisect's builds are, outside the repository (MK_CHECKPATCH_CACHE=none:
# none kept), so that a run checks only the patches that changed; those
# two at a time.
cp_cache=${MK_CHECKPATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/multikernel/checkpatch}
cp_key=$({ wt rev-parse "$topic:scripts" "$topic:MAINTAINERS" \
		"$topic:include" "$topic:arch/x86/include"
	   echo "--strict --show-types"; perl --version
	 } | sha1sum | cut -c1-40)
[ "$cp_cache" = none ] || mkdir -p "$cp_cache"
cp_dir=$out/checkpatch
rm -rf "$cp_dir"
mkdir -p "$cp_dir"
for p in "$MK_REPO"/topic/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	# Not the first line, which names the commit, nor the numbers
	k=$(sed -e 1d -e 's/^Subject: \[PATCH [0-9/]*\]/Subject:/' "$p" |
	    sha1sum | cut -c1-40)-$cp_key
	if [ "$cp_cache" != none ] && [ -s "$cp_cache/$k" ]; then
		cp "$cp_cache/$k" "$cp_dir/$(basename "$p").log"
	else
		echo "$p $k"
	fi
done > "$cp_dir/todo"
# (each: the worktree, where the logs go, the cache, a patch, its key);
# the first alone, which writes --strict's CamelCase cache for the others
checkpatch_each() {
	# shellcheck disable=SC2016
	xargs -r -n 2 -P "$1" sh -c '
		log=$2/$(basename "$4").log
		(cd "$1" && PATH=/usr/bin:$PATH scripts/checkpatch.pl \
			--strict --show-types "$4") > "$log.tmp" 2>&1
		mv "$log.tmp" "$log"
		if [ "$3" != none ] && grep -q "^total:" "$log"; then
			cp "$log" "$3/$5.tmp.$$" && mv "$3/$5.tmp.$$" "$3/$5"
		fi' sh "$MK_WORKTREE" "$cp_dir" "$cp_cache" 2>> "$cp_dir/xargs.err" ||
		true
}
head -n 1 "$cp_dir/todo" | checkpatch_each 1
tail -n +2 "$cp_dir/todo" | checkpatch_each 2
cp_errors=0 cp_warnings=0 cp_checks=0
: > "$out/checkpatch.log"
for p in "$MK_REPO"/topic/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	res=$(cat "$cp_dir/$(basename "$p").log" 2>/dev/null ||
	      echo "no checkpatch log for $p")
	echo "$res" >> "$out/checkpatch.log"
	tot=$(echo "$res" | grep -E '^total:' | tail -n 1 || true)
	[ -n "$tot" ] || echo "checkpatch gave no total for $p" >&2
	e=$(echo "$tot" | sed -n 's/.* \([0-9]*\) errors.*/\1/p')
	w=$(echo "$tot" | sed -n 's/.* \([0-9]*\) warnings.*/\1/p')
	c=$(echo "$tot" | sed -n 's/.* \([0-9]*\) checks.*/\1/p')
	cp_errors=$((cp_errors + ${e:-1}))
	cp_warnings=$((cp_warnings + ${w:-0}))
	cp_checks=$((cp_checks + ${c:-0}))
done
# --strict leaves its CamelCase cache in the worktree, which make status
# would take for uncommitted work
rm -f "$MK_WORKTREE"/.checkpatch-camelcase.git.*
if [ "$cp_errors" = 0 ] && [ "$cp_warnings" = 0 ]; then
	pass checkpatch
else
	fail checkpatch "$cp_errors errors, $cp_warnings warnings ($out/checkpatch.log)"
	grep -E '^(ERROR|WARNING):|^Must be run' "$out/checkpatch.log" | head -n 20
fi
echo "INFO checkpatch: $cp_errors errors, $cp_warnings warnings, $cp_checks checks; $(wc -l < "$cp_dir/todo") patches checked, the others known ($cp_cache)"
grep -E '^CHECK:' "$out/checkpatch.log" | sed 's/^/INFO   /' || true
took checkpatch

# --- documentation ------------------------------------------------------
# This repository's guide and every .rst file the series adds to the
# kernel tree, as the topic branch has them.  Debian's python3
# (python3-docutils), as for checkpatch.
rst_dir=$out/rst
rm -rf "$rst_dir"
mkdir -p "$rst_dir"
rst_files=("$MK_REPO/Documentation/multikernel.rst")
while read -r f; do
	mkdir -p "$rst_dir/$(dirname "$f")"
	wt show "$topic:$f" > "$rst_dir/$f"
	rst_files+=("$rst_dir/$f")
done < <(wt diff --name-only --diff-filter=A "$MK_BASE_BRANCH" "$topic" -- '*.rst')
if docs=$(/usr/bin/python3 - "${rst_files[@]}" 2>&1 <<'EOF'
import io, sys
import docutils.core
for path in sys.argv[1:]:
    err = io.StringIO()
    docutils.core.publish_doctree(open(path).read(), source_path=path,
                                  settings_overrides={"warning_stream": err,
                                                      "report_level": 2})
    sys.stdout.write(err.getvalue())
EOF
) && [ -z "$docs" ]; then
	pass docs_rst
else
	fail docs_rst "$(echo "$docs" | head -n 3)"
fi
mapfile -t added < <(wt diff --name-only --diff-filter=A "$MK_BASE_BRANCH" \
	"$topic" -- '*.c' '*.h' ':!tools/')
kdoc=$(cd "$MK_WORKTREE" && perl scripts/kernel-doc -none -Wall "${added[@]}" 2>&1)
if [ -z "$kdoc" ]; then
	pass kernel_doc
else
	fail kernel_doc "$(echo "$kdoc" | head -n 3)"
fi

# --- coccinelle ---------------------------------------------------------
# What sparse and coccinelle report depends only on the files they read
# and on the tools, so their reports on a tip are kept, as checkpatch's
# verdicts are, outside the repository (MK_LINT_CACHE=none: none kept).
lint_cache=${MK_LINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/multikernel/lint}
[ "$lint_cache" = none ] || mkdir -p "$lint_cache"
# lint_cached NAME KEY LOG: copy the kept report to LOG; 1 if none is kept
lint_cached() {
	[ "$lint_cache" != none ] && [ -f "$lint_cache/$1-$2" ] &&
		cp "$lint_cache/$1-$2" "$3"
}
lint_keep() {
	[ "$lint_cache" = none ] ||
		{ cp "$3" "$lint_cache/$1-$2.tmp.$$" &&
		  mv "$lint_cache/$1-$2.tmp.$$" "$lint_cache/$1-$2"; }
}
# Single-threaded, so it runs in the background beside the bisect build,
# on a copy of the tip's files (the bisect checks out older commits).
# With --no-includes, its report on a file depends only on that file, the
# semantic patches and spatch: reports are kept per file, so that a run
# reads only the files that changed since a run before.
cocci_tool=$({ wt rev-parse "$topic:scripts/coccinelle"; spatch --version
	     } | sha1sum | cut -c1-40)
cocci_key() {
	echo "$1 $(wt rev-parse "$topic:$1") $cocci_tool" | sha1sum | cut -c1-40
}
lint() {
	local failed=0 tip=$out/tip sp f t kept=0
	local -a todo=()

	t=$(date +%s)

	rm -rf "$tip"
	mkdir -p "$tip"
	: > "$out/cocci.log"
	for f in "${cfiles[@]}"; do
		if lint_cached coccinelle "$(cocci_key "$f")" "$tip/kept"; then
			cat "$tip/kept" >> "$out/cocci.log"
			kept=$((kept + 1))
		else
			todo+=("$f")
		fi
	done
	echo "INFO coccinelle: ${#todo[@]} files read, $kept reports kept from a run before ($lint_cache)"
	if [ ${#todo[@]} -gt 0 ]; then
		wt archive "$topic" -- "${todo[@]}" | tar -x -C "$tip"
		: > "$out/cocci-todo.log"
		: > "$out/cocci-errors.log"
		for sp in "$MK_WORKTREE"/scripts/coccinelle/*/*.cocci; do
			# Debian's spatch has no OCaml: the semantic
			# patches with OCaml rules cannot run
			if grep -q ':ocaml' "$sp"; then
				echo "INFO coccinelle: not run (OCaml rules): ${sp#"$MK_WORKTREE"/}"
				continue
			fi
			(cd "$tip" && spatch -D report --no-show-diff \
				--very-quiet --no-includes --include-headers \
				--cocci-file "$sp" "${todo[@]}" \
				2>> "$out/cocci-errors.log") \
				>> "$out/cocci-todo.log" ||
				echo "spatch $sp: exit $?" >> "$out/cocci-errors.log"
		done
		cat "$out/cocci-todo.log" >> "$out/cocci.log"
		# Keep each file's lines, only if every spatch finished (one
		# that crashed reported nothing); a line that names none of the
		# files read cannot be kept with one, so then none is kept.
		if grep -q '^spatch .*: exit ' "$out/cocci-errors.log"; then
			echo "INFO coccinelle: a spatch failed, none kept: $(grep -m1 '^spatch .*: exit ' "$out/cocci-errors.log")"
		elif printf '%s:\n' "${todo[@]}" | awk 'NR == FNR { f[$0] = 1; next }
			{ sub(/:.*/, ":"); if (!($0 in f)) bad = 1 }
			END { exit bad }' - "$out/cocci-todo.log"; then
			for f in "${todo[@]}"; do
				awk -v f="$f:" 'index($0, f) == 1' \
					"$out/cocci-todo.log" > "$tip/kept"
				lint_keep coccinelle "$(cocci_key "$f")" "$tip/kept"
			done
		else
			echo "INFO coccinelle: a report line names no file read: none kept"
		fi
	fi
	only_added < "$out/cocci.log" > "$out/cocci-new.log" || true
	if [ -s "$out/cocci-new.log" ]; then
		fail coccinelle "$(wc -l < "$out/cocci-new.log") reports on added lines"
		head -n 20 "$out/cocci-new.log"
	else
		pass coccinelle
	fi
	echo "INFO check_time:coccinelle: $(( $(date +%s) - t )) s (beside the bisect)"
	return "$failed"
}
lint > "$out/lint.out" 2>&1 &
lint_pid=$!

took docs

# Symbol names, without what moves with line numbers (initcall names) or
# is numbered by the compiler (clones, function-local statics)
mk_symbols() {
	awk '{ print $3 }' "$1/System.map" |
		sed -E 's/\.(constprop|isra|part|cold|llvm)(\.[0-9]+)*//g
			s/\.[0-9]+$//
			s/^(__UNIQUE_ID_[A-Za-z_]*[A-Za-z_])[0-9]+$/\1/
			/^__initcall__kmod_/ s/__[0-9]+_[0-9]+_/__/' | sort -u
}

# --- bisect build -------------------------------------------------------
bisect_ok=1
bisect_start=$(date +%s)
# (under set -e, a failing command in the trap would become the exit code)
trap 'kill "$lint_pid" 2>/dev/null || true; wt checkout -q "$MK_TOPIC_BRANCH"' EXIT
# The symbols of the unpatched tree in the CONFIG_MULTIKERNEL=n
# configuration, for the comparison below.  They depend only on the base,
# its configuration and the compiler, so they are kept with the lint
# reports; the tree is built only when they are not, or when the base,
# its configuration or the compiler changed: checking the base out and
# back touches every file the series changes, which the host build then
# compiles again.
base_ok=1
base_key=$({ wt rev-parse "$MK_BASE_BRANCH^{tree}"
	     cat "$MK_REPO/kconfig/base.config" "$MK_REPO/kconfig/small.config"
	     cat "$MK_REPO/scripts/build.sh"; gcc --version; ld --version
	     declare -f mk_symbols
	   } | sha1sum | cut -c1-40)
base_stamp=$MK_BUILD/nomk-base/.mk-base-stamp
base_syms=$out/nomk-base.symbols
if lint_cached nomk-base-symbols "$base_key" "$base_syms"; then
	echo "INFO nomk-base: the unpatched tree's symbols were kept ($lint_cache)"
elif [ -s "$MK_BUILD/nomk-base/System.map" ] &&
   [ "$(cat "$base_stamp" 2>/dev/null)" = "$base_key" ]; then
	echo "INFO nomk-base: the unpatched tree was built before ($base_key)"
	mk_symbols "$MK_BUILD/nomk-base" > "$base_syms"
	lint_keep nomk-base-symbols "$base_key" "$base_syms"
else
	wt checkout -q --detach "$MK_BASE_BRANCH"
	rm -f "$base_stamp"
	if "$MK_REPO/scripts/build.sh" nomk-base base small \
		> "$out/nomk-base.log" 2>&1; then
		echo "$base_key" > "$base_stamp"
		mk_symbols "$MK_BUILD/nomk-base" > "$base_syms"
		lint_keep nomk-base-symbols "$base_key" "$base_syms"
	else
		base_ok=0
	fi
fi
: > "$out/bisect-times.log"
# Which trees built, kept outside the repository as ccache keeps its
# cache: one empty file per commit tree, configuration and compiler, so
# that a run builds only the patches that changed (MK_BISECT_CACHE=none
# builds every one).
cache=${MK_BISECT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/multikernel/bisect}
conf_key=$({ for f in $MK_HOST_CONFIG; do cat "$MK_REPO/kconfig/$f.config"; done
	     cat "$MK_REPO/scripts/build.sh"; gcc --version
	   } | sha1sum | cut -c1-40)
[ "$cache" = none ] || mkdir -p "$cache"
# A patch that changes no file the kernel's build reads (documentation,
# the tool, the selftests, MAINTAINERS) right after a patch built here
# leaves the build as it was: instead of the kernel, the tool and the
# selftest are compiled against that build's uapi headers.
# Whether commit $1 changes a file the kernel's build reads: 0 if not, 1
# if so, 2 if git cannot tell (the top-level Kconfig sources
# Documentation/Kconfig)
kernel_files_changed() {
	local rc=0

	wt diff --quiet --no-renames "$1^" "$1" -- . ':!Documentation/' \
		':!tools/multikernel/' ':!tools/testing/selftests/' \
		':!MAINTAINERS' || rc=$?
	[ "$rc" = 0 ] || return "$rc"
	wt diff --quiet --no-renames "$1^" "$1" -- Documentation/Kconfig ||
		return $?
}
tools_build() {
	local d=$out/bisect-tools wt_dir=$MK_WORKTREE inc=$MK_BUILD/host/usr/include

	rm -rf "$d"
	mkdir -p "$d"
	if [ -f "$wt_dir/tools/multikernel/multikernel.c" ]; then
		gcc -O2 -Wall -Wextra -Werror -I "$inc" -c -o "$d/multikernel.o" \
			"$wt_dir/tools/multikernel/multikernel.c" || return 1
	fi
	if [ -f "$wt_dir/tools/testing/selftests/multikernel/Makefile" ]; then
		make -s -C "$wt_dir/tools/testing/selftests/multikernel" \
			OUTPUT="$d" KHDR_INCLUDES="-isystem $inc" || return 1
	fi
}
built=0 known=0 tools_only=0 dir_fresh=0
for c in $(wt rev-list --reverse "$MK_BASE_BRANCH..$topic"); do
	key=$cache/$(wt rev-parse "$c^{tree}")-$conf_key
	what=$(wt log -1 --format='%h %s' "$c")
	if [ "$cache" != none ] && [ -e "$key" ]; then
		echo "built before $what" >> "$out/bisect-times.log"
		known=$((known + 1))
		dir_fresh=0
		continue
	fi
	wt checkout -q --detach "$c"
	t=$(date +%s)
	changed=0
	kernel_files_changed "$c" || changed=$?
	[ "$changed" -le 1 ] || die "git diff $c^ $c failed"
	if [ "$dir_fresh" = 1 ] && [ "$changed" = 0 ]; then
		if ! tools_build > "$out/bisect.log" 2>&1; then
			fail bisect "$what: the tool or the selftest does not build ($out/bisect.log)"
			tail -n 20 "$out/bisect.log"
			bisect_ok=0
			break
		fi
		tools_only=$((tools_only + 1))
		echo "$(( $(date +%s) - t )) s, no kernel file changed: $what" >> "$out/bisect-times.log"
	else
		if ! MK_KCONFIG_STRICT=0 "$MK_REPO/scripts/build.sh" host \
			$MK_HOST_CONFIG > "$out/bisect.log" 2>&1; then
			fail bisect "$what does not build ($out/bisect.log)"
			tail -n 20 "$out/bisect.log"
			bisect_ok=0
			break
		fi
		built=$((built + 1))
		dir_fresh=1
		echo "$(( $(date +%s) - t )) s $what" >> "$out/bisect-times.log"
	fi
	[ "$cache" = none ] || : > "$key"
done
wt checkout -q "$MK_TOPIC_BRANCH"
[ "$bisect_ok" = 1 ] && pass bisect
echo "INFO bisect: $(( $(date +%s) - bisect_start )) s, $built patches built, $tools_only changing no kernel file (their tool and selftest compiled), $known built before in this configuration ($out/bisect-times.log)"

if ! wait "$lint_pid"; then
	failed=1
fi
cat "$out/lint.out"
took bisect_and_coccinelle

# --- the host configuration at the tip ----------------------------------
if ! "$MK_REPO/scripts/build.sh" host $MK_HOST_CONFIG > "$out/host.log" 2>&1; then
	fail kconfig_on "host build failed ($out/host.log)"
	tail -n 20 "$out/host.log"
else
	pass kconfig_on
fi

took host_build

# --- sparse -------------------------------------------------------------
# Only objects this configuration builds (entry_fred.o needs X86_FRED).
objs=()
for f in "${cfiles[@]}"; do
	if [ -f "$MK_BUILD/host/${f%.c}.o" ]; then
		objs+=("${f%.c}.o")
	fi
done
if [ ${#objs[@]} -eq 0 ]; then
	fail sparse "no object of the series was built"
else
	# Its key: the tip's tree (every header counts), the host's
	# configuration, the objects, sparse and the compiler
	sparse_key=$({ wt rev-parse "$topic^{tree}"
		       cat "$MK_BUILD/host/.config"; echo "${objs[@]}"
		       sparse --version; gcc --version
		     } | sha1sum | cut -c1-40)
	# (kept with the paths relative to the tree: a clone elsewhere
	# reads the same report)
	if lint_cached sparse "$sparse_key" "$out/sparse.log"; then
		echo "INFO sparse: the warnings on this tip were kept ($lint_cache)"
	elif make -k -s -C "$MK_WORKTREE" O="$MK_BUILD/host" C=2 CHECK=sparse \
		"${objs[@]}" > "$out/sparse-raw.log" 2>&1; then
		sed "s|^$MK_WORKTREE/||" "$out/sparse-raw.log" > "$out/sparse.log"
		lint_keep sparse "$sparse_key" "$out/sparse.log"
	else
		sed "s|^$MK_WORKTREE/||" "$out/sparse-raw.log" > "$out/sparse.log"
		fail sparse "make C=2 failed ($out/sparse.log)"
	fi
	echo "INFO sparse: ${#objs[@]} objects checked"
	grep -E '^[^ ]+:[0-9]+:' "$out/sparse.log" |
		only_added > "$out/sparse-new.log" || true
	if [ -s "$out/sparse-new.log" ]; then
		fail sparse "$(wc -l < "$out/sparse-new.log") warnings on added lines"
		head -n 20 "$out/sparse-new.log"
	else
		pass sparse
	fi
fi

took sparse

# --- CONFIG_MULTIKERNEL=n -----------------------------------------------
if ! "$MK_REPO/scripts/build.sh" nomk base small > "$out/nomk.log" 2>&1; then
	fail kconfig_off "CONFIG_MULTIKERNEL=n build failed ($out/nomk.log)"
	tail -n 20 "$out/nomk.log"
else
	syms=$(grep -ciE 'multikernel|[^a-z_]mk_' "$MK_BUILD/nomk/System.map" || true)
	secs=$(readelf -SW "$MK_BUILD/nomk/vmlinux" | grep -ci multikernel || true)
	if grep -q '^CONFIG_MULTIKERNEL=y' "$MK_BUILD/nomk/.config"; then
		fail kconfig_off "CONFIG_MULTIKERNEL is set in the nomk build"
	elif [ "$syms" != 0 ] || [ "$secs" != 0 ]; then
		fail kconfig_off "$syms multikernel symbols, $secs sections with it off"
	elif [ "$base_ok" != 1 ]; then
		fail kconfig_off "the unpatched tree does not build ($out/nomk-base.log)"
	elif ! diff "$base_syms" <(mk_symbols "$MK_BUILD/nomk") \
		> "$out/nomk-symbols.diff"; then
		fail kconfig_off "symbols unlike the unpatched tree's ($out/nomk-symbols.diff)"
		head -n 20 "$out/nomk-symbols.diff"
	else
		pass kconfig_off
	fi
fi
took kconfig_off

exit "$failed"
