complete -c lf-session-send -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-send -s V -l version -d 'Print version'
