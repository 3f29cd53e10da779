complete -c lf-session-restore -l dry-run -d 'Print what would be done, and do nothing'
complete -c lf-session-restore -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-restore -s V -l version -d 'Print version'
