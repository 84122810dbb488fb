//! The planned peer arms as the driver narrows them: what `--arms` keeps, and the
//! programs the kept arms need (looked up once each by [`super::Phase`]).

use std::collections::BTreeMap;

use crate::arms;
use crate::arms::peer::{PeerArm, Tool};

/// The peer arms `--arms` keeps (all of them without a filter).
pub fn filtered(all: Vec<PeerArm>, filter: Option<&str>) -> Vec<PeerArm> {
    match filter {
        None => all,
        Some(f) => all
            .into_iter()
            .filter(|a| arms::id_matches(&a.id, f))
            .collect(),
    }
}

/// The programs `arms` need, each once, with the arms' stacks that need it.
pub fn tools(arms: &[PeerArm]) -> BTreeMap<&'static str, (Tool, Vec<&'static str>)> {
    let mut out: BTreeMap<&'static str, (Tool, Vec<&'static str>)> = BTreeMap::new();
    for a in arms {
        for t in &a.tools {
            let (_, stacks) = out.entry(t.program).or_insert((*t, Vec::new()));
            if !stacks.contains(&a.stack) {
                stacks.push(a.stack);
            }
        }
    }
    out
}
