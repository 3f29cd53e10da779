module completions {

  # Register and list the work sessions belong to: waves and Tasks
  export extern lf-work [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  # Waves: named streams of work in a repository
  export extern "lf-work wave" [
    --help(-h)                # Print help
  ]

  # Register a wave and print it
  export extern "lf-work wave add" [
    --repo: path              # The repository the wave works in
    --help(-h)                # Print help
    name: string              # The wave's name, shown in work_path
  ]

  # Print all waves as a JSON array
  export extern "lf-work wave list" [
    --help(-h)                # Print help
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work wave help" [
  ]

  # Register a wave and print it
  export extern "lf-work wave help add" [
  ]

  # Print all waves as a JSON array
  export extern "lf-work wave help list" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work wave help help" [
  ]

  # Tasks: identified pieces of work, usually with a worktree
  export extern "lf-work task" [
    --help(-h)                # Print help
  ]

  # Register a Task and print it
  export extern "lf-work task add" [
    --title: string           # The Task's title
    --worktree: path          # The Task's checkout; sessions working inside it are associated with it
    --wave: string            # The wave the Task belongs to (id or name)
    --help(-h)                # Print help
    identifier: string        # The Task's identifier, such as LOO-291
  ]

  # Print all Tasks as a JSON array
  export extern "lf-work task list" [
    --help(-h)                # Print help
  ]

  # Mark a Task finished; its flow reviews then need no attention
  export extern "lf-work task finish" [
    --help(-h)                # Print help
    task: string              # The Task id or identifier
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work task help" [
  ]

  # Register a Task and print it
  export extern "lf-work task help add" [
  ]

  # Print all Tasks as a JSON array
  export extern "lf-work task help list" [
  ]

  # Mark a Task finished; its flow reviews then need no attention
  export extern "lf-work task help finish" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work task help help" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work help" [
  ]

  # Waves: named streams of work in a repository
  export extern "lf-work help wave" [
  ]

  # Register a wave and print it
  export extern "lf-work help wave add" [
  ]

  # Print all waves as a JSON array
  export extern "lf-work help wave list" [
  ]

  # Tasks: identified pieces of work, usually with a worktree
  export extern "lf-work help task" [
  ]

  # Register a Task and print it
  export extern "lf-work help task add" [
  ]

  # Print all Tasks as a JSON array
  export extern "lf-work help task list" [
  ]

  # Mark a Task finished; its flow reviews then need no attention
  export extern "lf-work help task finish" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-work help help" [
  ]

}

export use completions *
