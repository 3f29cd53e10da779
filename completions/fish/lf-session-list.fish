complete -c lf-session-list -l state -d 'Only sessions in this state' -r -f -a "unknown\t''
waiting\t''
active\t''
ready\t''
closed\t''
interrupted\t''
lost\t''"
complete -c lf-session-list -l kind -d 'Only sessions of this kind' -r -f -a "conversation\t''
flow\t''"
complete -c lf-session-list -l task -d 'Only sessions bound to this Task or working in its worktree (id or identifier)' -r
complete -c lf-session-list -l cwd -d 'Only sessions working in this directory or below it' -r -F
complete -c lf-session-list -l limit -d 'Print at most N sessions' -r
complete -c lf-session-list -l after -d 'Continue after this cursor (the "next" of a previous --page)' -r
complete -c lf-session-list -l host -d 'Also list the sessions of this host (repeatable; it need not be in the list)' -r
complete -c lf-session-list -l host-timeout -d 'How long each host may take, in seconds (default 5)' -r
complete -c lf-session-list -l attention -d 'Only sessions that need the person now (review, approve or reply)'
complete -c lf-session-list -l orphan -d 'Only sessions that belong to no Task'
complete -c lf-session-list -l here -d 'Only sessions working in the current directory or below it'
complete -c lf-session-list -l all -d 'Include closed (completed) sessions'
complete -c lf-session-list -l page -d 'Print a page object {"entries": [...], "next": cursor or null}'
complete -c lf-session-list -l jsonl -d 'Print one record per line (JSON Lines), streamed'
complete -c lf-session-list -l hosts -d 'Also list the sessions of every host of the host list (lf-host)'
complete -c lf-session-list -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-list -s V -l version -d 'Print version'
