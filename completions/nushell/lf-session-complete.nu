module completions {

  # Stop a session's agent and close the session; print its final record
  export extern lf-session-complete [
    --grace: string           # Seconds between SIGTERM and SIGKILL for the session's live clients
    --remove-worktree         # Also remove the session's worktree, and its branch once merged into its base
    --force                   # With --remove-worktree: remove it even if uncommitted or unmerged work would be lost
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
  ]

}

export use completions *
