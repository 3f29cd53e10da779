complete -c lf-session-answer -l request -d 'Answer only this request (`req-…`, its `attention_request.id`): refused if another is up' -r
complete -c lf-session-answer -l always -d 'With allow: do not ask again for the like of it (where the dialog offers that)'
complete -c lf-session-answer -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-answer -s V -l version -d 'Print version'
