module completions {

  # Print every change to your sessions as it happens, as JSON lines
  export extern lf-session-watch [
    --since: string           # Start after the event with this seq (0: with the oldest kept)
    --attention               # Only attention events: into or out of review, approve or reply
    --no-follow               # Print the events there are and exit instead of waiting for more
    --exec: string            # Run this command once per event, with the event as JSON on its stdin, instead of printing it (one at a time, in order)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
