//! The README and the book cannot rot: every `collector …` command they show parses with
//! the collector's own command line, every `cargo xtask …` command and flag is one the
//! xtask's usage (xtask/src/main.rs) lists, and every relative link and anchor resolves.

use std::path::{Path, PathBuf};

use shared::doc_commands::{shell_lines, words};

use clap::Parser;

use super::repo;
use crate::cli::Cli;

fn pages() -> Vec<(PathBuf, String)> {
    shared::doc_commands::pages(&repo())
}

#[test]
fn every_command_the_docs_show_is_one_the_programs_take() {
    let xtask = std::fs::read_to_string(repo().join("xtask/src/main.rs")).unwrap();
    let mut checked = 0;
    for (file, text) in pages() {
        for line in shell_lines(&text) {
            let name = file.strip_prefix(repo()).unwrap().display().to_string();
            if line.starts_with("cargo xtask ") {
                let w = words(line);
                let (command, rest) = w[2..].split_first().unwrap();
                assert!(
                    xtask.contains(&format!("cargo xtask {command}")),
                    "{name}: `{line}`: the xtask has no command `{command}`"
                );
                // Flags before a `--` are the xtask's own; after it they go to the collector.
                for flag in rest
                    .iter()
                    .take_while(|w| *w != "--")
                    .filter(|w| w.starts_with("--"))
                {
                    assert!(
                        xtask.contains(flag.as_str()),
                        "{name}: `{line}`: no xtask flag {flag}"
                    );
                }
                checked += 1;
                continue;
            }
            assert!(
                line.starts_with("collector "),
                "{name}: `{line}`: a command in the docs is `collector …` or `cargo xtask …`, \
                 so the suite can check it"
            );
            if let Err(e) = Cli::try_parse_from(words(line)) {
                use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
                assert!(
                    matches!(e.kind(), DisplayHelp | DisplayVersion),
                    "{name}: `{line}` does not parse: {e}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} commands found in the docs");
}

/// mdbook's id for a heading: lower case, spaces to `-`, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if !inside && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#').trim()));
        }
    }
    out
}

/// The targets of a page's inline links and images outside code.
fn links(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        if inside {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let tail = &rest[i + 2..];
            let Some(end) = tail.find(')') else { break };
            out.push(tail[..end].to_owned());
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn anchors_and_links_are_read_as_mdbook_and_markdown_do() {
    assert_eq!(
        anchor("`collector run` — the arms, 1.3 & 1.2"),
        "collector-run--the-arms-13--12"
    );
    assert_eq!(
        links("see [a](x.md#b) and ![i](img/p.png)\n```\n[c](no.md)\n```"),
        ["x.md#b", "img/p.png"]
    );
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let pages = pages();
    let mut checked = 0;
    for (file, text) in &pages {
        for target in links(text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, frag) = target.split_once('#').unwrap_or((&target, ""));
            let to: &Path = if path.is_empty() {
                file
            } else {
                &file.parent().unwrap().join(path)
            };
            let name = file.strip_prefix(repo()).unwrap().display();
            assert!(to.exists(), "{name}: the link `{target}` points at nothing");
            if !frag.is_empty() {
                let to = to.canonicalize().unwrap();
                let (_, text) = pages
                    .iter()
                    .find(|(p, _)| *p == to)
                    .unwrap_or_else(|| panic!("{name}: `{target}` has an anchor in a non-page"));
                assert!(
                    anchors(text).contains(&frag.to_owned()),
                    "{name}: no heading `#{frag}` for `{target}`"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} links found in the docs");
}
