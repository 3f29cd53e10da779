complete -c lf-session-diff -l patch -d 'Print the unified diff instead of JSON'
complete -c lf-session-diff -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-diff -s V -l version -d 'Print version'
