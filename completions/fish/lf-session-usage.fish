complete -c lf-session-usage -l by -d 'Sum by this' -r -f -a "session\t''
day\t''
folder\t''
repository\t''
provider\t''"
complete -c lf-session-usage -l since -d 'Only from this day on (YYYY-MM-DD, UTC)' -r
complete -c lf-session-usage -l host -d 'Also sum the sessions of this host (repeatable; it need not be in the list)' -r
complete -c lf-session-usage -l host-timeout -d 'How long each host may take, in seconds (default 5)' -r
complete -c lf-session-usage -l json -d 'Print the rows as a JSON array'
complete -c lf-session-usage -l hosts -d 'Also sum the sessions of every host of the host list (lf-host)'
complete -c lf-session-usage -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-usage -s V -l version -d 'Print version'
