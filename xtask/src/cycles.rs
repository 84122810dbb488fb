//! `cargo xtask cycles`: the import cycles between a crate's modules, from its sources.
//!
//! Each `.rs` file under a crate's `src/` is a module (`a/b.rs` and `a/b/mod.rs` are
//! `a::b`; `foo_tests.rs` files and everything after a file's first `#[cfg(test)]` are
//! test code and left out). A module depends on another when its code names it: a
//! `crate::…` path anywhere (in `use` lines or inline), or a `super::…` path. A path
//! resolves to the deepest module it names; an item a module re-exports (`pub use
//! child::Item`) resolves to where it comes from. A parent's own children (its `mod` and
//! `pub use child::…` lines) are not dependencies: re-exporting children is fine, siblings
//! reaching into each other are not. Prints every group of modules that reach each other
//! (strongly connected components), with one cycle through each, at file level and at
//! the crate's top level.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The crates checked by default (the collector and the viewer), also by `cargo xtask test`.
pub const CRATES: &[&str] = &["collector", "viewer"];

pub fn run(args: &[String]) -> Result<std::process::ExitCode> {
    let crates: Vec<&str> = if args.is_empty() {
        CRATES.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    Ok(if check(&crates)? {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// Prints the cycles of each of `crates`; true when any crate has a file-level cycle.
pub fn check(crates: &[&str]) -> Result<bool> {
    let root = crate::tools::root();
    let mut any = false;
    for &name in crates {
        let src = root.join(name).join("src");
        if !src.is_dir() {
            bail!("{} is not a crate's src folder", src.display());
        }
        let graph = Graph::read(&src)?;
        let files = graph.cycles(|m| m.to_string());
        let top = graph.cycles(|m| m.split("::").next().unwrap_or(m).to_string());
        println!("{name}: {} modules", graph.modules.len());
        println!("  file-level cycles: {}", files.len());
        for c in &files {
            println!("    {}", c.join(" → "));
        }
        println!("  top-level groups that reach each other: {}", top.len());
        for c in &top {
            println!("    {}", c.join(" → "));
        }
        any |= !files.is_empty();
    }
    Ok(any)
}

/// Modules (by path, `""` for the crate root) and what each depends on.
pub struct Graph {
    pub modules: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// Reads every module under `src`.
    pub fn read(src: &Path) -> Result<Graph> {
        let mut sources: BTreeMap<String, String> = BTreeMap::new();
        for file in rs_files(src)? {
            let rel = file.strip_prefix(src)?.with_extension("");
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts
                .last()
                .is_some_and(|p| p.ends_with("_tests") || p == "tests")
            {
                continue;
            }
            let mut parts = parts;
            if matches!(parts.last().map(String::as_str), Some("mod")) {
                parts.pop();
            }
            if parts.len() == 1 && matches!(parts[0].as_str(), "lib" | "main") {
                parts.clear();
            }
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            sources.insert(parts.join("::"), production_code(&text));
        }
        Ok(Graph::from_sources(&sources))
    }

    /// The graph of modules given as (path, code).
    pub fn from_sources(sources: &BTreeMap<String, String>) -> Graph {
        let names: BTreeSet<String> = sources.keys().cloned().collect();
        // Items each module re-exports: name → the module it comes from.
        let mut reexports: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (m, code) in sources {
            for stmt in use_statements(code, true) {
                for path in expand(&stmt) {
                    let abs = absolute(&names, m, &path);
                    if let (Some(abs), Some(item)) = (abs, path.last()) {
                        let target = deepest(&names, &abs);
                        if target != *m {
                            reexports
                                .entry(m.clone())
                                .or_default()
                                .insert(item.clone(), target);
                        }
                    }
                }
            }
        }
        let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, code) in sources {
            let deps = modules.entry(m.clone()).or_default();
            let mut paths: Vec<Vec<String>> = Vec::new();
            for stmt in use_statements(code, false) {
                paths.extend(expand(&stmt));
            }
            // Modules imported by name (`use crate::measure;`): their inline paths too.
            let mut prefixes: Vec<(String, Vec<String>)> = vec![
                ("crate".into(), vec!["crate".into()]),
                ("super".into(), vec!["super".into()]),
            ];
            for path in &paths {
                if let (Some(abs), Some(last)) = (absolute(&names, m, path), path.last()) {
                    if names.contains(&abs.join("::")) && last != "crate" && last != "super" {
                        let mut full = vec!["crate".to_string()];
                        full.extend(abs);
                        prefixes.push((last.clone(), full));
                    }
                }
            }
            paths.extend(inline_paths(code, &prefixes));
            for path in paths {
                let Some(abs) = absolute(&names, m, &path) else {
                    continue;
                };
                let mut target = deepest(&names, &abs);
                // An item re-exported by the module the path stops at: where it is from.
                let depth = if target.is_empty() {
                    0
                } else {
                    target.split("::").count()
                };
                if let Some(item) = abs.get(depth) {
                    let mut seen = BTreeSet::new();
                    while let Some(from) = reexports.get(&target).and_then(|r| r.get(item)) {
                        if !seen.insert(from.clone()) {
                            break;
                        }
                        target = from.clone();
                    }
                }
                let own_child = target.starts_with(&format!("{m}::")) || (m.is_empty());
                if target != *m && !own_child {
                    deps.insert(target);
                }
            }
        }
        Graph { modules }
    }

    /// Groups of nodes (modules mapped by `node`) that reach each other, each as one
    /// cycle through all its members (closed: it ends where it starts).
    pub fn cycles(&self, node: impl Fn(&str) -> String) -> Vec<Vec<String>> {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, deps) in &self.modules {
            let from = node(m);
            let entry = edges.entry(from.clone()).or_default();
            for d in deps {
                let to = node(d);
                if to != from && !to.is_empty() && !from.is_empty() {
                    entry.insert(to);
                }
            }
        }
        let mut out = Vec::new();
        for group in sccs(&edges) {
            if group.len() < 2 {
                continue;
            }
            out.push(cycle_through(&edges, &group));
        }
        out
    }
}

/// Every `.rs` file under `dir`, sorted.
fn rs_files(dir: &Path) -> Result<Vec<PathBuf>> {
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
fn production_code(text: &str) -> String {
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
fn use_statements(code: &str, public: bool) -> Vec<String> {
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
fn expand(tree: &str) -> Vec<Vec<String>> {
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
fn inline_paths(code: &str, prefixes: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
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
fn absolute(names: &BTreeSet<String>, m: &str, path: &[String]) -> Option<Vec<String>> {
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
fn child(m: &str, name: &str) -> String {
    if m.is_empty() {
        name.to_string()
    } else {
        format!("{m}::{name}")
    }
}

/// The deepest module of `names` that `path` lies in (`""`: the crate root).
fn deepest(names: &BTreeSet<String>, path: &[String]) -> String {
    for n in (1..=path.len()).rev() {
        let candidate = path[..n].join("::");
        if names.contains(&candidate) {
            return candidate;
        }
    }
    String::new()
}

/// Strongly connected components (Tarjan), each sorted.
fn sccs(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            group.sort();
            s.out.push(group);
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: Vec<&str> = edges
        .iter()
        .flat_map(|(k, vs)| std::iter::once(k.as_str()).chain(vs.iter().map(String::as_str)))
        .collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    let mut out = s.out;
    out.sort();
    out
}

/// A closed walk inside `group` from its first member through every other one and back
/// (shortest paths between consecutive members).
fn cycle_through(edges: &BTreeMap<String, BTreeSet<String>>, group: &[String]) -> Vec<String> {
    let inside: BTreeSet<&str> = group.iter().map(String::as_str).collect();
    let path = |from: &str, to: &str| -> Vec<String> {
        // Breadth-first inside the group.
        let mut prev: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from.to_string()]);
        let mut seen = BTreeSet::from([from.to_string()]);
        while let Some(v) = queue.pop_front() {
            for w in edges.get(&v).into_iter().flatten() {
                if inside.contains(w.as_str()) && seen.insert(w.clone()) {
                    prev.insert(w.clone(), v.clone());
                    if w == to {
                        let mut p = vec![w.clone()];
                        while let Some(u) = prev.get(p.last().unwrap_or(&String::new())) {
                            if u == from {
                                break;
                            }
                            p.push(u.clone());
                        }
                        p.reverse();
                        return p;
                    }
                    queue.push_back(w.clone());
                }
            }
        }
        vec![to.to_string()]
    };
    let mut walk = vec![group[0].clone()];
    let mut order: Vec<&String> = group[1..].iter().collect();
    order.push(&group[0]);
    for target in order {
        if walk[1..].contains(target) && target != &group[0] {
            continue;
        }
        let from = walk.last().cloned().unwrap_or_default();
        walk.extend(path(&from, target));
    }
    walk
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let sources = files
            .iter()
            .map(|(m, c)| (m.to_string(), production_code(c)))
            .collect();
        Graph::from_sources(&sources)
    }

    #[test]
    fn siblings_that_use_each_other_are_a_cycle_and_re_exports_are_not() {
        let g = graph(&[
            ("", "mod a; mod b; mod p;"),
            (
                "a",
                "use crate::b::{self, Thing};\nfn f() { crate::p::g(); }",
            ),
            ("b", "use super::a::Other;"),
            ("p", "pub mod c;\npub use c::Item;"),
            (
                "p::c",
                "use crate::p::Item; // its parent re-exports it: fine\n",
            ),
        ]);
        assert_eq!(g.modules["a"], BTreeSet::from(["b".into(), "p".into()]));
        assert_eq!(g.modules["b"], BTreeSet::from(["a".into()]));
        // p::c names its own item through the parent's re-export: no edge p::c → p.
        assert!(g.modules["p::c"].is_empty(), "{:?}", g.modules["p::c"]);
        assert_eq!(g.cycles(str::to_string), vec![vec!["a", "b", "a"]]);
    }

    #[test]
    fn items_resolve_through_re_exports_and_test_code_is_left_out() {
        let g = graph(&[
            (
                "x",
                "use crate::y::Thing;\n#[cfg(test)]\nmod tests { use crate::z::Q; }",
            ),
            ("y", "pub mod inner;\npub use inner::Thing;"),
            ("y::inner", "use crate::x::f;"),
            ("z", "use crate::x::f;"),
        ]);
        assert_eq!(g.modules["x"], BTreeSet::from(["y::inner".into()]));
        assert_eq!(g.cycles(str::to_string), vec![vec!["x", "y::inner", "x"]]);
        // At the top level, x and y reach each other.
        let top = g.cycles(|m| m.split("::").next().unwrap_or(m).to_string());
        assert_eq!(top, vec![vec!["x", "y", "x"]]);
    }

    #[test]
    fn a_module_imported_by_name_is_followed_in_inline_paths() {
        let g = graph(&[
            ("a", "use crate::b;\nfn f() { b::inner::g(); }"),
            ("b", ""),
            ("b::inner", "use crate::a::X;"),
        ]);
        assert_eq!(
            g.modules["a"],
            BTreeSet::from(["b".into(), "b::inner".into()])
        );
        assert_eq!(g.cycles(str::to_string), vec![vec!["a", "b::inner", "a"]]);
    }

    #[test]
    fn use_trees_expand_to_every_path() {
        assert_eq!(
            expand("crate::a::{b,c::{d,e},self,f as g}"),
            [
                vec!["crate", "a", "b"],
                vec!["crate", "a", "c", "d"],
                vec!["crate", "a", "c", "e"],
                vec!["crate", "a"],
                vec!["crate", "a", "f"],
            ]
        );
        let names = BTreeSet::from(["p".to_string(), "p::q".to_string()]);
        assert_eq!(
            absolute(
                &names,
                "p::q",
                &["super".into(), "super".into(), "r".into()]
            ),
            Some(vec!["r".to_string()])
        );
        assert_eq!(absolute(&names, "p", &["std".into(), "fmt".into()]), None);
        assert_eq!(
            absolute(&names, "p", &["q".into(), "X".into()]),
            Some(vec!["p".to_string(), "q".to_string(), "X".to_string()])
        );
    }
}
