//! Reading a crate's module paths from its sources: files to modules, `use` trees,
//! inline `crate::…`/`super::…` paths, and where a path resolves.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Every `.rs` file under `dir`, sorted.
pub(super) fn rs_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let p = entry?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `text` without line comments and without everything from its first `#[cfg(test)]`.
pub(super) fn production_code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The `use` statements of `code` (`pub use` only with `public`, else every one), each
/// as its tree text (`crate::a::{b, c::d}`), whitespace collapsed.
pub(super) fn use_statements(code: &str, public: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = &rest[..i];
        let starts_word = before
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == '{' || c == ';' || c == '}');
        let is_pub = before.trim_end().ends_with("pub") || before.trim_end().ends_with(')');
        let after = &rest[i + 4..];
        let Some(end) = after.find(';') else { break };
        if starts_word && (!public || is_pub) {
            out.push(
                after[..end]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        rest = &after[end..];
    }
    out
}

/// The paths a use tree names, each as segments (`a::{b, c::d}` → `a::b`, `a::c::d`);
/// `self` in a group is the group's own path; renames (`as x`) are dropped.
pub(super) fn expand(tree: &str) -> Vec<Vec<String>> {
    fn go(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let mut base = prefix.to_vec();
            base.extend(head);
            let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
            let inner = &tree[open + 1..close];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        go(&base, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            go(&base, &inner[start..], out);
        } else {
            let tree = tree.split_once(" as ").map_or(tree, |(t, _)| t).trim();
            if tree.is_empty() {
                return;
            }
            let mut path = prefix.to_vec();
            for seg in tree.split("::").map(str::trim).filter(|s| !s.is_empty()) {
                if seg == "self" {
                    continue;
                }
                path.push(seg.to_string());
            }
            out.push(path);
        }
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

/// Inline paths in `code` that start with one of `prefixes` (`crate::`, `super::`, a
/// module imported by name), each rewritten to start with what the prefix stands for.
pub(super) fn inline_paths(code: &str, prefixes: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (name, stands_for) in prefixes {
        let start = format!("{name}::");
        let start = start.as_str();
        let mut rest = code;
        while let Some(i) = rest.find(start) {
            let ok = rest[..i]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
            let tail = &rest[i..];
            let len = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            if ok {
                let mut path = stands_for.clone();
                path.extend(
                    tail[..len]
                        .split("::")
                        .skip(1)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                );
                out.push(path);
            }
            rest = &rest[i + start.len()..];
        }
    }
    out
}

/// `path` (as written in module `m`) as segments from the crate root, or None when it
/// does not start in this crate (`std::…`, another crate, a local name).
pub(super) fn absolute(names: &BTreeSet<String>, m: &str, path: &[String]) -> Option<Vec<String>> {
    let mut here: Vec<String> = if m.is_empty() {
        Vec::new()
    } else {
        m.split("::").map(str::to_string).collect()
    };
    let mut segs = path.iter();
    match path.first().map(String::as_str) {
        Some("crate") => {
            segs.next();
            here.clear();
        }
        Some("super") => {
            while path.get(path.len() - segs.len()).map(String::as_str) == Some("super") {
                segs.next();
                here.pop();
            }
        }
        Some("self") => {
            segs.next();
        }
        // A child module of `m`, named relative to it.
        Some(first) if names.contains(&child(m, first)) => {}
        _ => return None,
    }
    here.extend(segs.cloned());
    Some(here)
}

/// `m::name` (or `name` at the crate root).
pub(super) fn child(m: &str, name: &str) -> String {
    if m.is_empty() {
        name.to_string()
    } else {
        format!("{m}::{name}")
    }
}

/// The deepest module of `names` that `path` lies in (`""`: the crate root).
pub(super) fn deepest(names: &BTreeSet<String>, path: &[String]) -> String {
    for n in (1..=path.len()).rev() {
        let candidate = path[..n].join("::");
        if names.contains(&candidate) {
            return candidate;
        }
    }
    String::new()
}
