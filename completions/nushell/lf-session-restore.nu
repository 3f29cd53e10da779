module completions {

  # Bring back every session whose agent was lost: after a reboot, or when the tmux server went away
  export extern lf-session-restore [
    --dry-run                 # Print what would be done, and do nothing
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
