module completions {

  # Show the agent processes running now, each with the one session it belongs to
  export extern lf-session-active [
    --task: string            # Only sessions bound to this Task (id or identifier)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
