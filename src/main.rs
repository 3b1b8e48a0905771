//! The `lectern` command: parse arguments, call the core library, print.

mod cli;

fn main() -> std::process::ExitCode {
    lectern::allocator::share_arenas();
    lectern::pdf::serve_if_asked();
    cli::main()
}
