fn main() {
    use lf_bins::cmd::web::Cli;
    lf_bins::main_with::<Cli>(Cli::NAME, lf_web::serve)
}
