fn main() {
    lf_bins::main::<lf_bins::cmd::host::Cli>()
}
