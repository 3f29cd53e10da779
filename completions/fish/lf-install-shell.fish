complete -c lf-install-shell -l shell -d 'Install for this shell only (repeatable); default: every one on PATH' -r -f -a "bash\t''
zsh\t''
fish\t''
nushell\t''"
complete -c lf-install-shell -l uninstall -d 'Remove lf\'s completions, man pages, tmux kit and .zshrc block (files of yours stay)'
complete -c lf-install-shell -l json -d 'Print what was done as JSON: {"changes": [{target, path, action}], "notes": [...], "warnings": [{kind, target, file, add, message}]}'
complete -c lf-install-shell -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-install-shell -s V -l version -d 'Print version'
