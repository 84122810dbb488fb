//! For the tests that keep the docs honest (the collector's and the end-to-end ones):
//! the README and the book's pages, and the commands their ```sh blocks show, split as a
//! shell would.

use std::path::{Path, PathBuf};

/// `root`'s README.md and every page under `root`/docs/src, with their text, in path order.
pub fn pages(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = entry.expect("a directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// The command lines of a page's ```sh (or bash, shell) blocks: one per line, comments
/// and blank lines left out.
pub fn shell_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(lang) = t.strip_prefix("```") {
            inside = !inside && matches!(lang, "sh" | "bash" | "shell");
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            lines.push(t);
        }
    }
    lines
}

/// A command line split as a shell would (quotes, no expansion).
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quote, mut any) = (None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), _) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            _ => (word.push(c), any = true).1,
        }
    }
    if any {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_shell_does() {
        assert_eq!(
            words("collector run --arms 'a b' \"c\"  d"),
            ["collector", "run", "--arms", "a b", "c", "d"]
        );
        assert_eq!(words("x ''"), ["x", ""]);
    }

    #[test]
    fn only_shell_blocks_give_commands() {
        let page = "```sh\ncollector run\n# a comment\n\n```\n```text\nnot a command\n```\n```bash\ncargo xtask test\n```";
        assert_eq!(shell_lines(page), ["collector run", "cargo xtask test"]);
    }
}
