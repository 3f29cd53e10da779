# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_primary_global_optspecs
    string join \n h/help V/version
end

function __fish_lf_primary_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_primary_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_primary_using_subcommand
    set -l cmd (__fish_lf_primary_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-primary -n "__fish_lf_primary_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-primary -n "__fish_lf_primary_needs_command" -s V -l version -d 'Print version'
complete -c lf-primary -n "__fish_lf_primary_needs_command" -f -a "ensure" -d 'Find or create the primary session of this repository (or --wave) and run it'
complete -c lf-primary -n "__fish_lf_primary_needs_command" -f -a "replace" -d 'Stop and close a primary session; give its scope a successor'
complete -c lf-primary -n "__fish_lf_primary_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand ensure" -l wave -d 'The wave (id or name) instead of the current repository' -r
complete -c lf-primary -n "__fish_lf_primary_using_subcommand ensure" -l provider -d 'The agent for a new primary session' -r -f -a "claude\t''
codex\t''
gemini\t''
opencode\t''"
complete -c lf-primary -n "__fish_lf_primary_using_subcommand ensure" -l attach -d 'Go to the session afterwards'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand ensure" -s h -l help -d 'Print help'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand replace" -l attach -d 'Go to the successor afterwards'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand replace" -s h -l help -d 'Print help'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand help; and not __fish_seen_subcommand_from ensure replace help" -f -a "ensure" -d 'Find or create the primary session of this repository (or --wave) and run it'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand help; and not __fish_seen_subcommand_from ensure replace help" -f -a "replace" -d 'Stop and close a primary session; give its scope a successor'
complete -c lf-primary -n "__fish_lf_primary_using_subcommand help; and not __fish_seen_subcommand_from ensure replace help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
