module completions {

  def "nu-complete lf-session-answer answer" [] {
    [ "allow" "deny" ]
  }

  # Answer the request a session's agent waits on: allow or deny; print its record
  export extern lf-session-answer [
    --always                  # With allow: do not ask again for the like of it (where the dialog offers that)
    --request: string         # Answer only this request (`req-…`, its `attention_request.id`): refused if another is up
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
    answer: string@"nu-complete lf-session-answer answer" # Allow what the prompt asks, or deny it
  ]

}

export use completions *
