complete -c lf-session-ready -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-ready -s V -l version -d 'Print version'
