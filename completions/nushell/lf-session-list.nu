module completions {

  def "nu-complete lf-session-list state" [] {
    [ "unknown" "waiting" "active" "ready" "closed" "interrupted" "lost" ]
  }

  def "nu-complete lf-session-list kind" [] {
    [ "conversation" "flow" ]
  }

  # List sessions as JSON, newest first
  export extern lf-session-list [
    --attention               # Only sessions that need the person now (review, approve or reply)
    --state: string@"nu-complete lf-session-list state" # Only sessions in this state
    --kind: string@"nu-complete lf-session-list kind" # Only sessions of this kind
    --task: string            # Only sessions bound to this Task or working in its worktree (id or identifier)
    --orphan                  # Only sessions that belong to no Task
    --cwd: path               # Only sessions working in this directory or below it
    --here                    # Only sessions working in the current directory or below it
    --all                     # Include closed (completed) sessions
    --limit: string           # Print at most N sessions
    --after: string           # Continue after this cursor (the "next" of a previous --page)
    --page                    # Print a page object {"entries": [...], "next": cursor or null}
    --jsonl                   # Print one record per line (JSON Lines), streamed
    --hosts                   # Also list the sessions of every host of the host list (lf-host)
    --host: string            # Also list the sessions of this host (repeatable; it need not be in the list)
    --host-timeout: string    # How long each host may take, in seconds (default 5)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
