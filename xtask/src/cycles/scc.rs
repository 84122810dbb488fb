//! The groups of modules that reach each other (strongly connected components) and one
//! cycle through each.

use std::collections::{BTreeMap, BTreeSet};

/// Strongly connected components (Tarjan), each sorted.
pub(super) fn sccs(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
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
pub(super) fn cycle_through(
    edges: &BTreeMap<String, BTreeSet<String>>,
    group: &[String],
) -> Vec<String> {
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
