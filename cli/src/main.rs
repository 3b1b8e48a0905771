//! The `lectern` program: the command line (this crate's library) over the core.

fn main() -> std::process::ExitCode {
    lectern::allocator::share_arenas();
    lectern::pdf::serve_if_asked();
    lectern_cli::main(std::env::args_os())
}
