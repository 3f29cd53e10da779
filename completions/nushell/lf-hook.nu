module completions {

  # Receive a provider's hook (called by the agent, not by people)
  export extern lf-hook [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    provider: string          # Which provider is calling (an agent provider's name)
    ...payload: string        # The payload arguments (Codex's `notify` passes its JSON as the last one)
  ]

}

export use completions *
