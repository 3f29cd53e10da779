complete -c lf-session-bind -l preview -d 'Show what would be bound; bind nothing'
complete -c lf-session-bind -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-bind -s V -l version -d 'Print version'
