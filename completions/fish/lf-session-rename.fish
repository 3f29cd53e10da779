complete -c lf-session-rename -l generated -d 'The title is generated (by an agent), not chosen by a person'
complete -c lf-session-rename -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-rename -s V -l version -d 'Print version'
