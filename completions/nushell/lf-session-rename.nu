module completions {

  # Rename a session and print its SessionRecord
  export extern lf-session-rename [
    --generated               # The title is generated (by an agent), not chosen by a person
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    id: string                # The session id (or its first 6 or more characters), or the id of its current Run
    title: string             # The new title
  ]

}

export use completions *
