# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_work_global_optspecs
    string join \n h/help V/version
end

function __fish_lf_work_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_work_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_work_using_subcommand
    set -l cmd (__fish_lf_work_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-work -n "__fish_lf_work_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-work -n "__fish_lf_work_needs_command" -s V -l version -d 'Print version'
complete -c lf-work -n "__fish_lf_work_needs_command" -f -a "wave" -d 'Waves: named streams of work in a repository'
complete -c lf-work -n "__fish_lf_work_needs_command" -f -a "task" -d 'Tasks: identified pieces of work, usually with a worktree'
complete -c lf-work -n "__fish_lf_work_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and not __fish_seen_subcommand_from add list help" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and not __fish_seen_subcommand_from add list help" -f -a "add" -d 'Register a wave and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and not __fish_seen_subcommand_from add list help" -f -a "list" -d 'Print all waves as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and not __fish_seen_subcommand_from add list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from add" -l repo -d 'The repository the wave works in' -r -F
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from help" -f -a "add" -d 'Register a wave and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from help" -f -a "list" -d 'Print all waves as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand wave; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and not __fish_seen_subcommand_from add list finish help" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and not __fish_seen_subcommand_from add list finish help" -f -a "add" -d 'Register a Task and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and not __fish_seen_subcommand_from add list finish help" -f -a "list" -d 'Print all Tasks as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and not __fish_seen_subcommand_from add list finish help" -f -a "finish" -d 'Mark a Task finished; its flow reviews then need no attention'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and not __fish_seen_subcommand_from add list finish help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from add" -l title -d 'The Task\'s title' -r
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from add" -l worktree -d 'The Task\'s checkout; sessions working inside it are associated with it' -r -F
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from add" -l wave -d 'The wave the Task belongs to (id or name)' -r
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from finish" -s h -l help -d 'Print help'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "add" -d 'Register a Task and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "list" -d 'Print all Tasks as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "finish" -d 'Mark a Task finished; its flow reviews then need no attention'
complete -c lf-work -n "__fish_lf_work_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and not __fish_seen_subcommand_from wave task help" -f -a "wave" -d 'Waves: named streams of work in a repository'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and not __fish_seen_subcommand_from wave task help" -f -a "task" -d 'Tasks: identified pieces of work, usually with a worktree'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and not __fish_seen_subcommand_from wave task help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and __fish_seen_subcommand_from wave" -f -a "add" -d 'Register a wave and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and __fish_seen_subcommand_from wave" -f -a "list" -d 'Print all waves as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "add" -d 'Register a Task and print it'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "list" -d 'Print all Tasks as a JSON array'
complete -c lf-work -n "__fish_lf_work_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "finish" -d 'Mark a Task finished; its flow reviews then need no attention'
