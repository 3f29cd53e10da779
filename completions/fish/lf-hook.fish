complete -c lf-hook -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-hook -s V -l version -d 'Print version'
