# SPDX-License-Identifier: GPL-2.0
#
# Sourced by qemu/console.sh and qemu/story.sh, which type into a
# terminal and read it as a person would.  It makes $work, a directory
# that goes at exit with the tmux server below, and defines:
#
#   tmux_start SCRIPT  run SCRIPT in a pane of a tmux server of its own,
#                      200 columns wide, its whole history kept, the pane
#                      left as it was when SCRIPT ends
#   pane               what the pane showed so far, wrapped lines joined,
#                      without carriage returns or trailing blanks
#   keys KEY...        tmux send-keys to the pane
#
# Needs $name (for the server's name) and tmux.
command -v tmux > /dev/null || die "no tmux: run scripts/deps.sh"
work=$(mktemp -d)
tmux_sock=mk-$name-$$
tmux_cleanup() {
	tmux -L "$tmux_sock" kill-server 2> /dev/null || true
	rm -rf "$work"
}
trap tmux_cleanup EXIT

tmux_start() {
	printf '%s\n' 'set-option -g history-limit 50000' \
		'set-option -g remain-on-exit on' > "$work/tmux.conf"
	tmux -L "$tmux_sock" -f "$work/tmux.conf" new-session -d -s mk \
		-x 200 -y 50 "$1"
}

pane() {
	tmux -L "$tmux_sock" capture-pane -p -J -S - -t mk 2> /dev/null |
		sed -e 's/\r//g' -e 's/[[:space:]]*$//' |
		awk '{ l[NR] = $0 } $0 != "" { n = NR }
		     END { for (i = 1; i <= n; i++) print l[i] }' || true
}

keys() {
	tmux -L "$tmux_sock" send-keys -t mk "$@"
}
