# Sourced by the benchmarks: `release PACKAGE...` sets BIN_DIR to a folder
# of release builds. A BIN_DIR the caller gave is used as it is (made
# absolute); else this checkout's PACKAGEs are built now. The workspace
# builds for the host's tuple, statically linked (.cargo/config.toml), so
# cargo puts them in <target dir>/<tuple>/release.
release() {
    if [[ -n ${BIN_DIR:-} ]]; then
        BIN_DIR=$(cd -- "$BIN_DIR" && pwd)
        return
    fi
    local root packages=() target tuple
    root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
    for package in "$@"; do packages+=(-p "$package"); done
    echo "== building release builds of $*" >&2
    (cd "$root" && cargo build --release --quiet "${packages[@]}")
    target=$(cd "$root" && cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    tuple=$(rustc -vV | sed -n 's/^host: //p')
    BIN_DIR="$target/$tuple/release"
}
