complete -c lf-session-new -l provider -d 'The agent CLI to run' -r -f -a "claude\t''
codex\t''
gemini\t''
opencode\t''
command\t''"
complete -c lf-session-new -l model -d 'The model, passed to the provider\'s --model' -r
complete -c lf-session-new -l title -d 'The title (1–200 characters); by default one is generated from the prompt' -r
complete -c lf-session-new -l cwd -d 'The working directory (default: the Task\'s worktree, else the current directory)' -r -F
complete -c lf-session-new -l task -d 'Bind the session to this Task (id or identifier)' -r
complete -c lf-session-new -l worktree -d 'Work in a new git worktree on a new branch: --worktree, or --worktree=NAME (default lf-<8 id characters)' -r
complete -c lf-session-new -l base -d 'The branch the worktree\'s branch starts from and is compared with (default: the current branch)' -r
complete -c lf-session-new -l no-launch -d 'Only record the session; do not launch it'
complete -c lf-session-new -l attach -d 'Go to the session once it runs'
complete -c lf-session-new -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-session-new -s V -l version -d 'Print version'
