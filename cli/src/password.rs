//! Passwords kept off the command line (where every user's `ps` shows them): typed at a prompt
//! with echo off, or read from standard input (`--password-stdin`) for scripts.

use std::io::{BufRead, IsTerminal, Write};

use lectern::Error;

/// The password given on the command line if any, else read from stdin or asked for.
pub fn password(given: Option<String>, from_stdin: bool, prompt: &str) -> Result<String, Error> {
    if let Some(given) = given {
        return Ok(given);
    }
    let stdin = std::io::stdin();
    let typed = !from_stdin && stdin.is_terminal();
    if typed {
        eprint!("{prompt}: ");
        let _ = std::io::stderr().flush();
    }
    let echo = typed.then(EchoOff::new).flatten();
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    drop(echo);
    read.map_err(Error::io("standard input"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

/// The terminal's echo, turned off until dropped.
struct EchoOff(libc::termios);

impl EchoOff {
    fn new() -> Option<EchoOff> {
        // SAFETY: an all-zero termios is a valid value of this plain C struct, and tcgetattr and
        // tcsetattr only read and write the struct given, for standard input.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ECHO;
            quiet.c_lflag |= libc::ECHONL;
            (libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &quiet) == 0).then_some(EchoOff(saved))
        }
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `new`, for standard input.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.0);
        }
    }
}
