module completions {

  def "nu-complete lf-install-shell shell" [] {
    [ "bash" "zsh" "fish" "nushell" ]
  }

  # Install lf's man pages and shell completions for you (no root needed)
  export extern lf-install-shell [
    --shell: string@"nu-complete lf-install-shell shell" # Install for this shell only (repeatable); default: every one on PATH
    --uninstall               # Remove lf's completions, man pages, tmux kit and .zshrc block (files of yours stay)
    --json                    # Print what was done as JSON: {"changes": [{target, path, action}], "notes": [...], "warnings": [{kind, target, file, add, message}]}
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
