module completions {

  # Serve the Sessions that need you as one page, for a browser or a phone
  export extern lf-web [
    --listen: string          # The address and port to listen on (port 0: any free port)
    --allow-remote            # Listen on an address other than loopback (a VPN's): anyone who can reach it and has the token controls your agents, and the token and cookies cross that network in clear (plain HTTP)
    --host: string            # Another name this machine is reached by (a VPN's name for it): requests are accepted for it as for the listen address
    --new-token               # Make a new token first: browsers that had the old one must open the new URL
    --no-qr                   # Print the URL alone, without its QR code
    --print-url               # Print the URL (which carries the token) even when stdout is not a terminal; without it, only a terminal is shown the URL
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

}

export use completions *
