//! Project commands, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Each command installs what a fresh machine lacks, says what it does before doing it,
//! and stops with a message that names what failed.

mod lab;
mod test;
mod tools;

use std::process::ExitCode;

const USAGE: &str = "\
Handshake Lab project commands

USAGE:
    cargo xtask lab [-- <collector run flags>]
        Build the collector (release), run it on defaults into results/, and print
        where the evidence went. Flags after `--` go to `collector run`
        (see `cargo run -p collector -- run --help`).

    cargo xtask test
        Run every test: formatting check, unit tests, end-to-end tests.
        Installs what is missing first.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("lab") => lab::run(&args[1..]),
        Some("test") => test::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!("xtask: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
