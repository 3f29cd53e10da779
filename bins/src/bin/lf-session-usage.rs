fn main() {
    lf_bins::main::<lf_bins::cmd::session_usage::Cli>()
}
