# Sourced by scripts/test.sh and scripts/run.sh: both build the workspace the same way, so that
# the app started by run.sh reuses what the tests' build compiled (and the other way round).
#
# Clippy lints the workspace's crates as they are built (it is the compiler of the workspace's
# crates, as `cargo clippy` makes it), so that the dependencies are compiled once rather than
# checked for clippy and then built again: this is what `cargo clippy --workspace --all-targets
# -- -D warnings` checks (every target of the workspace is a library, a binary or a test). The
# wrapper is part of what cargo remembers of a build, so a build without it compiles the
# workspace's crates again.
RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-Dwarnings__CLIPPY_HACKERY__"
