complete -c lf-session-next -l print -d 'Print the session\'s record instead of going there'
complete -c lf-session-next -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-next -s V -l version -d 'Print version'
