module completions {

  def "nu-complete lf-session-usage by" [] {
    [ "session" "day" "folder" "repository" "provider" ]
  }

  # What the sessions used: tokens, turns, time and cost
  export extern lf-session-usage [
    --by: string@"nu-complete lf-session-usage by" # Sum by this
    --since: string           # Only from this day on (YYYY-MM-DD, UTC)
    --json                    # Print the rows as a JSON array
    --hosts                   # Also sum the sessions of every host of the host list (lf-host)
    --host: string            # Also sum the sessions of this host (repeatable; it need not be in the list)
    --host-timeout: string    # How long each host may take, in seconds (default 5)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
