complete -c lf-session-complete -l grace -d 'Seconds between SIGTERM and SIGKILL for the session\'s live clients' -r
complete -c lf-session-complete -l remove-worktree -d 'Also remove the session\'s worktree, and its branch once merged into its base'
complete -c lf-session-complete -l force -d 'With --remove-worktree: remove it even if uncommitted or unmerged work would be lost'
complete -c lf-session-complete -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-complete -s V -l version -d 'Print version'
