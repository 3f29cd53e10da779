module completions {

  # Flow reviews: an orchestrator asks a person to review one step of a flow
  export extern lf-flow [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete lf-flow review provider" [] {
    [ "claude" "codex" "gemini" "opencode" ]
  }

  # Create (once) and launch the review session of a flow position; print it
  export extern "lf-flow review" [
    --task: string            # The Task under review (id or identifier)
    --invocation: string      # The flow invocation
    --flow: string            # The flow's name
    --node: string            # The node's index in the flow graph
    --step: string            # The step (skill) to review
    --iteration: string       # The iteration of a repeated step
    --prompt: string          # Extra instructions for the review agent
    --provider: string@"nu-complete lf-flow review provider" # The agent CLI for the review
    --model: string           # The model, passed to the provider's --model
    --no-launch               # Only record the review; do not launch its agent
    --help(-h)                # Print help
  ]

  # The orchestrator moved on: the invocation's reviews become earlier positions
  export extern "lf-flow advance" [
    --invocation: string      # The flow invocation
    --help(-h)                # Print help
  ]

  # The invocation finished: its reviews become past
  export extern "lf-flow finish" [
    --invocation: string      # The flow invocation
    --help(-h)                # Print help
  ]

  # Wait until a review session is completed; print its feedback
  export extern "lf-flow wait" [
    --timeout: string         # Give up after this many seconds (exit 1)
    --help(-h)                # Print help
    session: string           # The review session id (or its first 6 or more characters)
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-flow help" [
  ]

  # Create (once) and launch the review session of a flow position; print it
  export extern "lf-flow help review" [
  ]

  # The orchestrator moved on: the invocation's reviews become earlier positions
  export extern "lf-flow help advance" [
  ]

  # The invocation finished: its reviews become past
  export extern "lf-flow help finish" [
  ]

  # Wait until a review session is completed; print its feedback
  export extern "lf-flow help wait" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-flow help help" [
  ]

}

export use completions *
