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
use std::path::Path;

use anyhow::{bail, Context, Result};

mod paths;
mod scc;

use paths::{absolute, deepest, expand, inline_paths, production_code, rs_files, use_statements};
use scc::{cycle_through, sccs};

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

/// Prints the cycles of each of `crates`; true when any crate has one, between files or
/// between its top-level modules.
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
        any |= !files.is_empty() || !top.is_empty();
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
