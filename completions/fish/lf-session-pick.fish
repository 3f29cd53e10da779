complete -c lf-session-pick -l task -d 'Only sessions of this Task (id or identifier)' -r
complete -c lf-session-pick -l attention -d 'Only sessions that need you now'
complete -c lf-session-pick -l print -d 'Print the chosen session\'s record instead of opening it'
complete -c lf-session-pick -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-pick -s V -l version -d 'Print version'
