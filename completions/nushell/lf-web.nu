module completions {

  # Serve the Sessions that need you as one page, for a browser or a phone
  export extern lf-web [
    --listen: string          # The address and port to listen on (port 0: any free port)
    --allow-remote            # Listen on an address other than loopback (a VPN's): anyone who can reach it and has the token controls your agents, and the token and cookies cross that network in clear (plain HTTP)
    --host: string            # Another name this machine is reached by (a VPN's name for it): requests are accepted for it as for the listen address
    --new-token               # Make a new token first, and sign out every device: each must open the new URL
    --no-qr                   # Print the URL alone, without its QR code
    --print-url               # Print the URL (which carries the token) even when stdout is not a terminal; without it, only a terminal is shown the URL
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  # Print the devices signed in (each opened the printed URL once), as a JSON array (schema/device.schema.json), most recently seen first. A device unused for 30 days is signed out by itself
  export extern "lf-web devices" [
    --help(-h)                # Print help
  ]

  # Sign out a device (its id from `lf-web devices`), or every one with --all, and print what was signed out as a JSON array. A running lf-web refuses its cookie from the next request on
  export extern "lf-web revoke" [
    --all                     # Sign out every device
    --help(-h)                # Print help
    device?: string           # The device's id (device- and 26 base32 characters)
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-web help" [
  ]

  # Print the devices signed in (each opened the printed URL once), as a JSON array (schema/device.schema.json), most recently seen first. A device unused for 30 days is signed out by itself
  export extern "lf-web help devices" [
  ]

  # Sign out a device (its id from `lf-web devices`), or every one with --all, and print what was signed out as a JSON array. A running lf-web refuses its cookie from the next request on
  export extern "lf-web help revoke" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-web help help" [
  ]

}

export use completions *
