module completions {

  # The one ongoing conversation of a repository or a wave
  export extern lf-primary [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete lf-primary ensure provider" [] {
    [ "claude" "codex" "gemini" "opencode" ]
  }

  # Find or create the primary session of this repository (or --wave) and run it
  export extern "lf-primary ensure" [
    --wave: string            # The wave (id or name) instead of the current repository
    --provider: string@"nu-complete lf-primary ensure provider" # The agent for a new primary session
    --attach                  # Go to the session afterwards
    --help(-h)                # Print help
  ]

  # Stop and close a primary session; give its scope a successor
  export extern "lf-primary replace" [
    --attach                  # Go to the successor afterwards
    --help(-h)                # Print help
    id: string                # The primary session id (or its first 6 or more characters), or the id of its current Run
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-primary help" [
  ]

  # Find or create the primary session of this repository (or --wave) and run it
  export extern "lf-primary help ensure" [
  ]

  # Stop and close a primary session; give its scope a successor
  export extern "lf-primary help replace" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-primary help help" [
  ]

}

export use completions *
