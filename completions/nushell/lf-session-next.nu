module completions {

  # Go to the next session that needs you
  export extern lf-session-next [
    --print                   # Print the session's record instead of going there
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
