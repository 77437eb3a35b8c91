#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Type qemu/shell.txt into make shell's machine, as a person would:
#
#   qemu/story.sh HOST_KBUILD_DIR INSTANCE_KBUILD_DIR [NAME]
#
# qemu/shell.sh runs in a tmux pane; each "host# " or "instance# " line of
# qemu/shell.txt is typed at its prompt once the prompt shows, and each
# "=> REGEX" line after it must match a line the command printed, in
# order, before the next prompt.  "exit" ends it: QEMU powers off and
# qemu/run.sh judges the host's log (shell.sh's NAME.verdict).  The
# commands must also be in README.md, which tells people what to try.
#
# What the pane showed goes to NAME.story as it comes, from the first
# prompt on, each line labelled with whose console it is: "host" (ttyS0),
# or "instance" while "multikernel console" is attached to the instance's
# (make demo prints it), with the "-- " lines before their commands as
# "--- " lines.  Prints "PASS NAME:check" or "FAIL NAME:check:
# why" lines; exits non-zero if any failed.
#
# Environment: MK_LOGDIR, MK_WORKTREE (for tools/multikernel).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -ge 2 ] && [ $# -le 3 ] ||
	{ echo "usage: $0 HOST_KBUILD_DIR INSTANCE_KBUILD_DIR [NAME]" >&2; exit 2; }
kbuild=$1 ikbuild=$2 name=${3:-story}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${MK_LOGDIR:-/tmp/mk-logs}
story=$logdir/$name.story
mkdir -p "$logdir"
: > "$story"
. "$here/tmux.sh"

failed=0
pass() { echo "PASS $name:$1"; }
fail() { echo "FAIL $name:$1: $2"; failed=1; }

# The README shows what to try: the same commands
missing=
while IFS= read -r line; do
	grep -qF -- "$line" "$MK_REPO/README.md" || missing+=" '$line'"
done < <(grep -E '^(host|instance)# ' "$here/shell.txt")
if [ -z "$missing" ]; then
	pass readme_commands
else
	fail readme_commands "README.md lacks$missing"
fi

cat > "$work/run" <<EOF
#!/usr/bin/env bash
MK_QEMU_TIMEOUT=600 MK_LOGDIR='$logdir' '$here/shell.sh' '$kbuild' \\
	'$ikbuild' '$name' > '$work/shell.out' 2>&1
echo \$? > '$work/rc'
EOF
chmod +x "$work/run"
tmux_start "$work/run"

# NAME.story gets the pane's new lines from the first prompt on, labelled,
# but for the last one, the line being typed (all of them with "all");
# not the shells' banners, nor runs of empty lines
shown=0
show() {
	local upto

	pane > "$work/pane"
	upto=$(wc -l < "$work/pane")
	[ "${1:-}" = all ] || upto=$((upto - 1))
	awk -v from="$shown" -v upto="$upto" '
		function label() {
			if (NR > from && NR <= upto)
				printf "%-8s | %s\n", who, $0
		}
		!who && /^host#( |$)/ { who = "host" }
		!who || /^Pane is dead/ { next }
		# not the shells banners, nor a second empty line
		/^BusyBox v[0-9.]+ .* built-in shell/ ||
		/^Enter .help. for a list of built-in commands/ { next }
		/^$/ && blank++ { next }
		!/^$/ { blank = 0 }
		/^multikernel: console: instance [0-9]+, / {
			label(); who = "instance"; next }
		/^multikernel: console: (detached from|instance [0-9]+ was unloaded)/ {
			who = "host" }
		{ label() }' "$work/pane" >> "$story"
	[ "$upto" -le "$shown" ] || shown=$upto
}

# The number of the first line after line AFTER that matches REGEX, once
# one does within SECS seconds; status 1 if none does
wait_line() {
	local after=$1 regex=$2 secs=$3 i n

	for ((i = 0; i < secs * 5; i++)); do
		# (the regex through the environment: -v would take its
		# backslashes for escapes)
		n=$(pane | re=$regex awk -v a="$after" \
			'NR > a && $0 ~ ENVIRON["re"] { print NR; exit }')
		if [ -n "$n" ]; then
			echo "$n"
			return 0
		fi
		[ -e "$work/rc" ] && break
		sleep 0.2
	done
	return 1
}

# (a prompt alone on its line has lost its blank)
prompt_re() {
	if [ "$1" = host ]; then echo '^host#( |$)'; else echo '^instance#( |$)'; fi
}

# Each command once its prompt shows after the last answer; a check per
# command, named after it
at=0 step=0 check= stopped= captions=()
while IFS= read -r line; do
	case $line in
	"=> "*)
		regex=${line#=> }
		if n=$(wait_line "$at" "$regex" 60); then
			at=$n
		else
			fail "$check" "no line matching '$regex' within 60 s ($story)"
			stopped=1
			break
		fi
		continue ;;
	"-- "*)
		captions+=("${line#-- }")
		continue ;;
	"host# "*) who=host ;;
	"instance# "*) who=instance ;;
	*) continue ;;
	esac
	[ -z "$check" ] || pass "$check"
	cmd=${line#*# }
	step=$((step + 1))
	if [ "$cmd" = '^]' ]; then
		check=$(printf '%02d_detach' "$step")
	else
		check=$(printf '%02d_%s' "$step" "$(printf '%s' "$cmd" |
			tr -c 'a-z0-9' _ | sed 's/__*/_/g' | cut -c1-32 |
			sed 's/_$//')")
	fi
	# The host's first prompt waits for its boot
	if ! n=$(wait_line "$at" "$(prompt_re "$who")" \
			$((step == 1 ? 300 : 60))); then
		fail "$check" "no $who prompt within the time ($story)"
		stopped=1
		break
	fi
	at=$n
	show
	if [ ${#captions[@]} -gt 0 ]; then
		[ ! -s "$story" ] || echo >> "$story"
		printf -- '--- %s\n' "${captions[@]}" >> "$story"
		captions=()
	fi
	if [ "$cmd" = '^]' ]; then
		keys C-]
	else
		keys -l "$cmd"
		keys Enter
	fi
done < "$here/shell.txt"
if [ -z "$stopped" ]; then
	pass "$check"
	if wait_line "$at" "$(prompt_re host)" 60 > /dev/null; then
		show
		keys -l exit
		keys Enter
	else
		fail exit "no host prompt after the last command ($story)"
	fi
else
	# Back to the host's shell, if it is there, and out
	keys C-]
	keys C-u
	keys -l exit
	keys Enter
fi

# Then QEMU powers off; shell.sh says what run.sh found
for ((i = 0; i < 600; i++)); do
	[ -e "$work/rc" ] && break
	sleep 0.2
done
show all
if [ -e "$work/rc" ]; then
	cat "$logdir/$name.verdict" 2> /dev/null || true
	[ "$(cat "$work/rc")" = 0 ] ||
		fail shell "qemu/shell.sh: $(tail -n 3 "$work/shell.out" | tr '\n' ' ')"
else
	fail poweroff "QEMU did not power off within 120 s ($story)"
fi
exit "$failed"
