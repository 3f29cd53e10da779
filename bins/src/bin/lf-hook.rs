fn main() {
    lf_bins::cmd::hook::main()
}
