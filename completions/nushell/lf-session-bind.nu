module completions {

  # Bind a session to a Task, permanently, and print its SessionRecord
  export extern lf-session-bind [
    --preview                 # Show what would be bound; bind nothing
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
    task: string              # The Task id or identifier
  ]

}

export use completions *
