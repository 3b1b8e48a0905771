//! The `lectern` command: the command line of the core library (`cli/`).

fn main() -> std::process::ExitCode {
    lectern::allocator::share_arenas();
    lectern::pdf::serve_if_asked();
    lectern::cli::main(std::env::args_os())
}
