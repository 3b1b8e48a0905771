//! The `lectern` command: parse arguments, call the core library, print.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
