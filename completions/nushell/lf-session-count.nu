module completions {

  # Count the sessions that need you, per kind of attention
  export extern lf-session-count [
    --format: string          # Print this text with {approve}, {reply}, {review} and {total} replaced by their counts
    --json                    # Print {"review": N, "approve": N, "reply": N, "total": N}
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
