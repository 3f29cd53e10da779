complete -c lf-session-active -l task -d 'Only sessions bound to this Task (id or identifier)' -r
complete -c lf-session-active -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-active -s V -l version -d 'Print version'
