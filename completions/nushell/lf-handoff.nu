module completions {

  # Hand an agent's terminal to a person, and give it back
  export extern lf-handoff [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete lf-handoff open provider" [] {
    [ "claude" "codex" "gemini" "opencode" "command" ]
  }

  # Open a handoff (or find the one this request opened) and print `{created, handoff}`
  export extern "lf-handoff open" [
    --cwd: path               # The terminal's working directory: the Task's worktree, or the Wave's repository
    --provider: string@"nu-complete lf-handoff open provider" # The agent CLI whose terminal is handed over
    --provider-session-id: string # The provider's own id of the conversation (Claude's session UUID, Codex's thread id)
    --body-generation: string # The generation of the agent process handing off; one handoff per generation, so a replayed open finds it
    --reason: string          # Why a person is needed
    --env: string             # A credential for the attach command, NAME=VALUE (repeatable); the value is never printed. NAME is in capitals and ends in _TOKEN, _KEY, _KEY_ID, _SECRET or _PASSWORD (GH_TOKEN); anything else (PATH, LD_PRELOAD, GIT_*, LF_*, ...) is refused: the person sees only names, so what is not secret belongs in the attach command
    --help(-h)                # Print help
    parent: string            # What the work is handed back to: task:TASK (id or identifier) or wave:WAVE (id or name)
  ]

  # Record that a person attaches and print the handoff; --exec runs the attach command in this terminal
  export extern "lf-handoff attach" [
    --exec                    # Replace this process with the attach command (attach_program, found on this PATH), run with the handoff's variables added
    --help(-h)                # Print help (see more with '--help')
    id: string                # The handoff id (handoff- and 26 base32 characters)
  ]

  # Record the handoff's outcome and print the handoff; the first outcome wins
  export extern "lf-handoff finish" [
    --handed-back: string     # The person gives the work back to the agent
    --completed: string       # The person finished the work
    --failed: string          # The handoff failed
    --help(-h)                # Print help
    id: string                # The handoff id
  ]

  # After the outcome, claim the wake of the agent: prints true for the first claim, false for every later one
  export extern "lf-handoff claim-wake" [
    --generation: string      # The body generation that claims the wake
    --help(-h)                # Print help
    id: string                # The handoff id
  ]

  # Print handoffs as a JSON array of rows, newest first
  export extern "lf-handoff list" [
    --active                  # Only handoffs without an outcome yet
    --help(-h)                # Print help
  ]

  # Print one handoff: what --exec would run is attach_program (found on this PATH) with attach_argv, in cwd, with the variables of environment_names
  export extern "lf-handoff show" [
    --help(-h)                # Print help
    id: string                # The handoff id
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-handoff help" [
  ]

  # Open a handoff (or find the one this request opened) and print `{created, handoff}`
  export extern "lf-handoff help open" [
  ]

  # Record that a person attaches and print the handoff; --exec runs the attach command in this terminal
  export extern "lf-handoff help attach" [
  ]

  # Record the handoff's outcome and print the handoff; the first outcome wins
  export extern "lf-handoff help finish" [
  ]

  # After the outcome, claim the wake of the agent: prints true for the first claim, false for every later one
  export extern "lf-handoff help claim-wake" [
  ]

  # Print handoffs as a JSON array of rows, newest first
  export extern "lf-handoff help list" [
  ]

  # Print one handoff: what --exec would run is attach_program (found on this PATH) with attach_argv, in cwd, with the variables of environment_names
  export extern "lf-handoff help show" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-handoff help help" [
  ]

}

export use completions *
