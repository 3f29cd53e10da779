complete -c lf-session-count -l format -d 'Print this text with {approve}, {reply}, {review} and {total} replaced by their counts' -r
complete -c lf-session-count -l json -d 'Print {"review": N, "approve": N, "reply": N, "total": N}'
complete -c lf-session-count -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-count -s V -l version -d 'Print version'
