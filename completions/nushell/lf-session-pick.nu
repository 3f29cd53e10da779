module completions {

  # Pick a session with the keyboard and open it (for a tmux popup)
  export extern lf-session-pick [
    --attention               # Only sessions that need you now
    --task: string            # Only sessions of this Task (id or identifier)
    --print                   # Print the chosen session's record instead of opening it
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
