complete -c lf-session-complete -l grace -d 'Seconds between SIGTERM and SIGKILL for the session\'s live clients' -r
complete -c lf-session-complete -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-complete -s V -l version -d 'Print version'
