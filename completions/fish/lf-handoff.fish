# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_handoff_global_optspecs
    string join \n h/help V/version
end

function __fish_lf_handoff_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_handoff_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_handoff_using_subcommand
    set -l cmd (__fish_lf_handoff_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -s V -l version -d 'Print version'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "open" -d 'Open a handoff (or find the one this request opened) and print `{created, handoff}`'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "attach" -d 'Record that a person attaches and print the handoff; --exec runs the attach command in this terminal'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "finish" -d 'Record the handoff\'s outcome and print the handoff; the first outcome wins'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "claim-wake" -d 'After the outcome, claim the wake of the agent: prints true for the first claim, false for every later one'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "list" -d 'Print handoffs as a JSON array of rows, newest first'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "show" -d 'Print one handoff: what --exec would run is attach_program (found on this PATH) with attach_argv, in cwd, with the variables of environment_names'
complete -c lf-handoff -n "__fish_lf_handoff_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l cwd -d 'The terminal\'s working directory: the Task\'s worktree, or the Wave\'s repository' -r -F
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l provider -d 'The agent CLI whose terminal is handed over' -r -f -a "claude\t''
codex\t''
gemini\t''
opencode\t''
command\t''"
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l provider-session-id -d 'The provider\'s own id of the conversation (Claude\'s session UUID, Codex\'s thread id)' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l body-generation -d 'The generation of the agent process handing off; one handoff per generation, so a replayed open finds it' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l reason -d 'Why a person is needed' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -l env -d 'A credential for the attach command, NAME=VALUE (repeatable); the value is never printed. NAME is in capitals and ends in _TOKEN, _KEY, _KEY_ID, _SECRET or _PASSWORD (GH_TOKEN); anything else (PATH, LD_PRELOAD, GIT_*, LF_*, ...) is refused: the person sees only names, so what is not secret belongs in the attach command' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand open" -s h -l help -d 'Print help'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand attach" -l exec -d 'Replace this process with the attach command (attach_program, found on this PATH), run with the handoff\'s variables added'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand attach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand finish" -l handed-back -d 'The person gives the work back to the agent' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand finish" -l completed -d 'The person finished the work' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand finish" -l failed -d 'The handoff failed' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand finish" -s h -l help -d 'Print help'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand claim-wake" -l generation -d 'The body generation that claims the wake' -r
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand claim-wake" -s h -l help -d 'Print help'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand list" -l active -d 'Only handoffs without an outcome yet'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand list" -s h -l help -d 'Print help'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand show" -s h -l help -d 'Print help'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "open" -d 'Open a handoff (or find the one this request opened) and print `{created, handoff}`'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "attach" -d 'Record that a person attaches and print the handoff; --exec runs the attach command in this terminal'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "finish" -d 'Record the handoff\'s outcome and print the handoff; the first outcome wins'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "claim-wake" -d 'After the outcome, claim the wake of the agent: prints true for the first claim, false for every later one'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "list" -d 'Print handoffs as a JSON array of rows, newest first'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "show" -d 'Print one handoff: what --exec would run is attach_program (found on this PATH) with attach_argv, in cwd, with the variables of environment_names'
complete -c lf-handoff -n "__fish_lf_handoff_using_subcommand help; and not __fish_seen_subcommand_from open attach finish claim-wake list show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
