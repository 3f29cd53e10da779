fn main() {
    lf_bins::main::<lf_bins::cmd::install_shell::Cli>()
}
