module completions {

  # Keep the host list: the other machines whose lf Homes listings include
  export extern lf-host [
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  # Add a host and print its entry
  export extern "lf-host add" [
    --home: string            # LF_HOME on that machine (default: its default Home)
    --bin: string             # The folder of lf's binaries there (default: the PATH its ssh commands get)
    --no-control-master       # Use no ControlMaster socket of lf's for this host (your ssh config decides)
    --help(-h)                # Print help
    host: string              # The host, as ssh takes it (letters, digits and - . _ @ : [ ] %)
  ]

  # Print the host list as a JSON array
  export extern "lf-host list" [
    --help(-h)                # Print help
  ]

  # Remove a host (and close lf's connection to it) and print its entry
  export extern "lf-host remove" [
    --help(-h)                # Print help
    host: string
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-host help" [
  ]

  # Add a host and print its entry
  export extern "lf-host help add" [
  ]

  # Print the host list as a JSON array
  export extern "lf-host help list" [
  ]

  # Remove a host (and close lf's connection to it) and print its entry
  export extern "lf-host help remove" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "lf-host help help" [
  ]

}

export use completions *
