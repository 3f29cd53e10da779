module completions {

  # Mark this agent's session ready for review (run by the agent)
  export extern lf-session-ready [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    summary: string           # What is ready and what the reviewer should look at
  ]

}

export use completions *
