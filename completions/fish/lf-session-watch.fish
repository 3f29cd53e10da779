complete -c lf-session-watch -l since -d 'Start after the event with this seq (0: with the oldest kept)' -r
complete -c lf-session-watch -l exec -d 'Run this command once per event, with the event as JSON on its stdin, instead of printing it (one at a time, in order)' -r
complete -c lf-session-watch -l attention -d 'Only attention events: into or out of review, approve or reply'
complete -c lf-session-watch -l no-follow -d 'Print the events there are and exit instead of waiting for more'
complete -c lf-session-watch -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-watch -s V -l version -d 'Print version'
