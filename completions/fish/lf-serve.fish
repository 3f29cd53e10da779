complete -c lf-serve -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-serve -s V -l version -d 'Print version'
