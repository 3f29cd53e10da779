#!/bin/sh
# lf's tmux kit. lf-install-shell installs it as
# ${XDG_DATA_HOME:-~/.local/share}/loopflow/tmux/lf.tmux; in ~/.tmux.conf:
#
#   run-shell '~/.local/share/loopflow/tmux/lf.tmux'
#
# It binds, after the prefix:
#   a  the picker in a popup (lf-session-pick)   KEY instead: set -g @lf-pick-key KEY
#   N  the next session that needs you           KEY instead: set -g @lf-next-key KEY
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

# Values reach a shell (the popup, run-shell and #() run their command
# with sh -c) and, for run-shell and #(), tmux's format expansion first:
# each is single-quoted for sh and has every # doubled where tmux expands
# (## is tmux's one #), so a value holding ', spaces, $ or #( ) means
# only itself. tmux ends #( at the first ), which nothing escapes: a
# status value holding one is refused, with a message.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
literal() { printf '%s' "$1" | sed 's/#/##/g'; }
refuse() { tmux display-message "lf.tmux: $1"; }

dir=$(option @lf-bin-dir '')
bin() { if [ -n "$dir" ]; then quote "$dir/$1"; else quote "$1"; fi; }

pick=$(option @lf-pick-key a)
next=$(option @lf-next-key N)
[ -n "$pick" ] && tmux bind-key "$pick" display-popup -E -w 90% -h 80% "$(bin lf-session-pick)"
[ -n "$next" ] && tmux bind-key "$next" run-shell -b "$(literal "$(bin lf-session-next)")"
if [ "$(option @lf-status off)" = on ]; then
    format=$(option @lf-status-format '')
    command=$(bin lf-session-count)
    [ -n "$format" ] && command="$command --format $(quote "$format")"
    case $command in
    *')'*) refuse "@lf-status-format and @lf-bin-dir cannot hold a closing parenthesis in a status line command; the counts are not shown" ;;
    *) tmux set-option -ga status-right " #($(literal "$command"))" ;;
    esac
fi
exit 0
