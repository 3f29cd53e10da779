# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_lf_web_global_optspecs
    string join \n listen= allow-remote host= new-token no-qr print-url h/help V/version
end

function __fish_lf_web_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_lf_web_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_lf_web_using_subcommand
    set -l cmd (__fish_lf_web_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c lf-web -n "__fish_lf_web_needs_command" -l listen -d 'The address and port to listen on (port 0: any free port)' -r
complete -c lf-web -n "__fish_lf_web_needs_command" -l host -d 'Another name this machine is reached by (a VPN\'s name for it): requests are accepted for it as for the listen address' -r
complete -c lf-web -n "__fish_lf_web_needs_command" -l allow-remote -d 'Listen on an address other than loopback (a VPN\'s): anyone who can reach it and has the token controls your agents, and the token and cookies cross that network in clear (plain HTTP)'
complete -c lf-web -n "__fish_lf_web_needs_command" -l new-token -d 'Make a new token first, and sign out every device: each must open the new URL'
complete -c lf-web -n "__fish_lf_web_needs_command" -l no-qr -d 'Print the URL alone, without its QR code'
complete -c lf-web -n "__fish_lf_web_needs_command" -l print-url -d 'Print the URL (which carries the token) even when stdout is not a terminal; without it, only a terminal is shown the URL'
complete -c lf-web -n "__fish_lf_web_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-web -n "__fish_lf_web_needs_command" -s V -l version -d 'Print version'
complete -c lf-web -n "__fish_lf_web_needs_command" -f -a "devices" -d 'Print the devices signed in (each opened the printed URL once), as a JSON array (schema/device.schema.json), most recently seen first. A device unused for 30 days is signed out by itself'
complete -c lf-web -n "__fish_lf_web_needs_command" -f -a "revoke" -d 'Sign out a device (its id from `lf-web devices`), or every one with --all, and print what was signed out as a JSON array. A running lf-web refuses its cookie from the next request on'
complete -c lf-web -n "__fish_lf_web_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c lf-web -n "__fish_lf_web_using_subcommand devices" -s h -l help -d 'Print help'
complete -c lf-web -n "__fish_lf_web_using_subcommand revoke" -l all -d 'Sign out every device'
complete -c lf-web -n "__fish_lf_web_using_subcommand revoke" -s h -l help -d 'Print help'
complete -c lf-web -n "__fish_lf_web_using_subcommand help; and not __fish_seen_subcommand_from devices revoke help" -f -a "devices" -d 'Print the devices signed in (each opened the printed URL once), as a JSON array (schema/device.schema.json), most recently seen first. A device unused for 30 days is signed out by itself'
complete -c lf-web -n "__fish_lf_web_using_subcommand help; and not __fish_seen_subcommand_from devices revoke help" -f -a "revoke" -d 'Sign out a device (its id from `lf-web devices`), or every one with --all, and print what was signed out as a JSON array. A running lf-web refuses its cookie from the next request on'
complete -c lf-web -n "__fish_lf_web_using_subcommand help; and not __fish_seen_subcommand_from devices revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
