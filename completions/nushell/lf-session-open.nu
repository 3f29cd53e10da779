module completions {

  # Take this terminal to a session
  export extern lf-session-open [
    --here                    # Run the agent in this terminal instead of a durable tmux session
    --replace                 # Stop the session's client in another terminal and resume here
    --try                     # Fail at once (exit 4) if another process is opening the session now
    --detach                  # Launch or resume if needed, print the record, and stay here
    --print                   # Print the session's record and do nothing else
    --host: string            # The session is on this host (as in lf-host list, or any host ssh takes)
    --host-timeout: string    # How long a host may take to say whether it has the session, in seconds (default 5)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
  ]

}

export use completions *
