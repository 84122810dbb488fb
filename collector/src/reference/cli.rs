//! `docs/src/reference/cli.md`: every visible command's help, exactly as
//! `collector COMMAND --help` prints it when its output is not a terminal (a test runs
//! the binary and compares).

use clap::CommandFactory;

use crate::cli::Cli;

/// `--help` wraps to the terminal, and to 100 columns when it is not one: the page is
/// generated at that width.
const WIDTH: usize = 100;

pub fn markdown() -> String {
    let mut out = format!(
        "{}\n\n# Command-line reference\n\n\
         Each section below is what `collector … --help` prints, generated from the same \
         definitions.\n",
        super::GENERATED
    );
    for path in commands(&Cli::command(), vec!["collector".to_owned()]) {
        out.push_str(&format!(
            "\n## `{}`\n\n```text\n{}\n```\n",
            path.join(" "),
            help(&path)
        ));
    }
    out
}

/// The words of every visible command, the root first, each before its subcommands.
fn commands(command: &clap::Command, path: Vec<String>) -> Vec<Vec<String>> {
    let mut all = vec![path.clone()];
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut words = path.clone();
        words.push(sub.get_name().to_owned());
        all.extend(commands(sub, words));
    }
    all
}

/// What `WORDS --help` prints: clap's own answer to that command line, so long or short
/// help is chosen as the binary chooses it.
fn help(words: &[String]) -> String {
    let command = Cli::command().term_width(WIDTH);
    let asked = words.iter().cloned().chain(["--help".to_owned()]);
    match command.try_get_matches_from(asked) {
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            e.render().to_string().trim_end().to_owned()
        }
        _ => panic!("`{} --help` does not print help", words.join(" ")),
    }
}
