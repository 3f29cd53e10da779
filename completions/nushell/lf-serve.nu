module completions {

  # Run one Run's agent in this terminal (the launcher inside a durable tmux session)
  export extern lf-serve [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    run: string               # The Run to launch
  ]

}

export use completions *
