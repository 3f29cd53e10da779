module completions {

  # Show what a session changed, for review: JSON, or the patch
  export extern lf-session-diff [
    --patch                   # Print the unified diff instead of JSON
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
  ]

}

export use completions *
