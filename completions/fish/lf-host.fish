# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_host_global_optspecs
    string join \n h/help V/version
end

function __fish_lf_host_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_host_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_host_using_subcommand
    set -l cmd (__fish_lf_host_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-host -n "__fish_lf_host_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-host -n "__fish_lf_host_needs_command" -s V -l version -d 'Print version'
complete -c lf-host -n "__fish_lf_host_needs_command" -f -a "add" -d 'Add a host and print its entry'
complete -c lf-host -n "__fish_lf_host_needs_command" -f -a "list" -d 'Print the host list as a JSON array'
complete -c lf-host -n "__fish_lf_host_needs_command" -f -a "remove" -d 'Remove a host (and close lf\'s connection to it) and print its entry'
complete -c lf-host -n "__fish_lf_host_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-host -n "__fish_lf_host_using_subcommand add" -l home -d 'LF_HOME on that machine (default: its default Home)' -r
complete -c lf-host -n "__fish_lf_host_using_subcommand add" -l bin -d 'The folder of lf\'s binaries there (default: the PATH its ssh commands get)' -r
complete -c lf-host -n "__fish_lf_host_using_subcommand add" -l no-control-master -d 'Use no ControlMaster socket of lf\'s for this host (your ssh config decides)'
complete -c lf-host -n "__fish_lf_host_using_subcommand add" -s h -l help -d 'Print help'
complete -c lf-host -n "__fish_lf_host_using_subcommand list" -s h -l help -d 'Print help'
complete -c lf-host -n "__fish_lf_host_using_subcommand remove" -s h -l help -d 'Print help'
complete -c lf-host -n "__fish_lf_host_using_subcommand help; and not __fish_seen_subcommand_from add list remove help" -f -a "add" -d 'Add a host and print its entry'
complete -c lf-host -n "__fish_lf_host_using_subcommand help; and not __fish_seen_subcommand_from add list remove help" -f -a "list" -d 'Print the host list as a JSON array'
complete -c lf-host -n "__fish_lf_host_using_subcommand help; and not __fish_seen_subcommand_from add list remove help" -f -a "remove" -d 'Remove a host (and close lf\'s connection to it) and print its entry'
complete -c lf-host -n "__fish_lf_host_using_subcommand help; and not __fish_seen_subcommand_from add list remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
