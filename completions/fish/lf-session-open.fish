complete -c lf-session-open -l host -d 'The session is on this host (as in lf-host list, or any host ssh takes)' -r
complete -c lf-session-open -l host-timeout -d 'How long a host may take to say whether it has the session, in seconds (default 5)' -r
complete -c lf-session-open -l here -d 'Run the agent in this terminal instead of a durable tmux session'
complete -c lf-session-open -l replace -d 'Stop the session\'s client in another terminal and resume here'
complete -c lf-session-open -l try -d 'Fail at once (exit 4) if another process is opening the session now'
complete -c lf-session-open -l detach -d 'Launch or resume if needed, print the record, and stay here'
complete -c lf-session-open -l print -d 'Print the session\'s record and do nothing else'
complete -c lf-session-open -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-open -s V -l version -d 'Print version'
