module completions {

  # Type a reply into a session's agent and submit it; print its record
  export extern lf-session-send [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
    text: string              # The reply, typed as it is (one line)
  ]

}

export use completions *
