#!/bin/sh
# lf's tmux kit. In ~/.tmux.conf:
#
#   run-shell '/path/to/lf/share/tmux/lf.tmux'
#
# It binds, after the prefix:
#   a  the picker in a popup (lf-session-pick)   override: set -g @lf-pick-key KEY
#   N  the next session that needs you           override: set -g @lf-next-key KEY
# and, only if you ask with `set -g @lf-status on`, appends the counts of
# the sessions that need you to status-right (lf-session-count; its format
# with `set -g @lf-status-format '{approve}/{reply}/{review}'`).
# Set the options before the run-shell line. An empty key binds nothing.
# It changes nothing else: no other option, no other key, no hook.
#
# The lf-* binaries are found on the PATH tmux runs commands with; set
# `set -g @lf-bin-dir DIR` if they are elsewhere (e.g. ~/.cargo/bin).

option() {
    value=$(tmux show-option -gqv "$1")
    if [ -n "$value" ] || tmux show-option -gq "$1" | grep -q .; then
        printf '%s' "$value"
    else
        printf '%s' "$2"
    fi
}

dir=$(option @lf-bin-dir '')
bin() { if [ -n "$dir" ]; then printf '%s/%s' "$dir" "$1"; else printf '%s' "$1"; fi; }

pick=$(option @lf-pick-key a)
next=$(option @lf-next-key N)
[ -n "$pick" ] && tmux bind-key "$pick" display-popup -E -w 90% -h 80% "$(bin lf-session-pick)"
[ -n "$next" ] && tmux bind-key "$next" run-shell -b "$(bin lf-session-next)"
if [ "$(option @lf-status off)" = on ]; then
    format=$(option @lf-status-format '')
    if [ -n "$format" ]; then
        tmux set-option -ga status-right " #($(bin lf-session-count) --format '$format')"
    else
        tmux set-option -ga status-right " #($(bin lf-session-count))"
    fi
fi
exit 0
