complete -c lf-web -l listen -d 'The address and port to listen on (port 0: any free port)' -r
complete -c lf-web -l host -d 'Another name this machine is reached by (a VPN\'s name for it): requests are accepted for it as for the listen address' -r
complete -c lf-web -l allow-remote -d 'Listen on an address other than loopback (a VPN\'s): anyone who can reach it and has the token controls your agents, and the token and cookies cross that network in clear (plain HTTP)'
complete -c lf-web -l new-token -d 'Make a new token first: browsers that had the old one must open the new URL'
complete -c lf-web -l no-qr -d 'Print the URL alone, without its QR code'
complete -c lf-web -l print-url -d 'Print the URL (which carries the token) even when stdout is not a terminal; without it, only a terminal is shown the URL'
complete -c lf-web -s h -l help -d 'Print help (see more with \'--help\')'
complete -c lf-web -s V -l version -d 'Print version'
