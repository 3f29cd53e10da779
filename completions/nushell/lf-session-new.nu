module completions {

  def "nu-complete lf-session-new provider" [] {
    [ "claude" "codex" "gemini" "opencode" "command" ]
  }

  # Create a conversation with an agent and print its SessionRecord
  export extern lf-session-new [
    --provider: string@"nu-complete lf-session-new provider" # The agent CLI to run
    --model: string           # The model, passed to the provider's --model
    --title: string           # The title (1–200 characters); by default one is generated from the prompt
    --cwd: path               # The working directory (default: the Task's worktree, else the current directory)
    --task: string            # Bind the session to this Task (id or identifier)
    --worktree: string        # Work in a new git worktree on a new branch: --worktree, or --worktree=NAME (default lf-<8 id characters)
    --base: string            # The branch the worktree's branch starts from and is compared with (default: the current branch)
    --no-launch               # Only record the session; do not launch it
    --attach                  # Go to the session once it runs
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    prompt?: string           # The first message to the agent (one that starts with -: after --, alone)
  ]

}

export use completions *
