# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_flow_global_optspecs
    string join \n h/help V/version
end

function __fish_lf_flow_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_flow_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_flow_using_subcommand
    set -l cmd (__fish_lf_flow_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-flow -n "__fish_lf_flow_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -s V -l version -d 'Print version'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -f -a "review" -d 'Create (once) and launch the review session of a flow position; print it'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -f -a "advance" -d 'The orchestrator moved on: the invocation\'s reviews become earlier positions'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -f -a "finish" -d 'The invocation finished: its reviews become past'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -f -a "wait" -d 'Wait until a review session is completed; print its feedback'
complete -c lf-flow -n "__fish_lf_flow_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l task -d 'The Task under review (id or identifier)' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l invocation -d 'The flow invocation' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l flow -d 'The flow\'s name' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l node -d 'The node\'s index in the flow graph' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l step -d 'The step (skill) to review' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l iteration -d 'The iteration of a repeated step' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l prompt -d 'Extra instructions for the review agent' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l provider -d 'The agent CLI for the review' -r -f -a "claude\t''
codex\t''
gemini\t''
opencode\t''"
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l model -d 'The model, passed to the provider\'s --model' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -l no-launch -d 'Only record the review; do not launch its agent'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand review" -s h -l help -d 'Print help'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand advance" -l invocation -d 'The flow invocation' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand advance" -s h -l help -d 'Print help'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand finish" -l invocation -d 'The flow invocation' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand finish" -s h -l help -d 'Print help'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand wait" -l timeout -d 'Give up after this many seconds (exit 1)' -r
complete -c lf-flow -n "__fish_lf_flow_using_subcommand wait" -s h -l help -d 'Print help'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand help; and not __fish_seen_subcommand_from review advance finish wait help" -f -a "review" -d 'Create (once) and launch the review session of a flow position; print it'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand help; and not __fish_seen_subcommand_from review advance finish wait help" -f -a "advance" -d 'The orchestrator moved on: the invocation\'s reviews become earlier positions'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand help; and not __fish_seen_subcommand_from review advance finish wait help" -f -a "finish" -d 'The invocation finished: its reviews become past'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand help; and not __fish_seen_subcommand_from review advance finish wait help" -f -a "wait" -d 'Wait until a review session is completed; print its feedback'
complete -c lf-flow -n "__fish_lf_flow_using_subcommand help; and not __fish_seen_subcommand_from review advance finish wait help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
