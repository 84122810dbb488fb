//! Lookups by id in one pass: the first position of each key.
//!
//! Validation and the viewer look arms up by id (comparisons name their arms, runs are
//! matched by arm id). Scanning the arms for each lookup made those checks
//! arms × comparisons; a hash map keeps them linear. The types here are not generic, so
//! the viewer's wasm holds one copy of the hash map's code, whoever uses it.

use std::collections::HashMap;

use crate::schema::Arm;

/// The first position of each key (keys borrowed from the data they index). Its
/// methods are never inlined: one copy of the map's code in the wasm, called from
/// everywhere.
#[derive(Debug, Clone)]
pub struct FirstIndex<'a> {
    map: HashMap<&'a str, usize>,
}

impl Default for FirstIndex<'_> {
    fn default() -> Self {
        FirstIndex::with_capacity(0)
    }
}

impl<'a> FirstIndex<'a> {
    #[inline(never)]
    pub fn with_capacity(n: usize) -> Self {
        FirstIndex {
            map: HashMap::with_capacity(n),
        }
    }

    /// Records `at` as the position of `key` unless `key` has one already; returns the
    /// earlier position if it had. `at` must differ from every position recorded (as a
    /// list's length does when each new key is pushed).
    #[inline(never)]
    pub fn insert_first(&mut self, key: &'a str, at: usize) -> Option<usize> {
        let first = *self.map.entry(key).or_insert(at);
        (first != at).then_some(first)
    }

    /// The position recorded for `key`.
    #[inline(never)]
    pub fn get(&self, key: &str) -> Option<usize> {
        self.map.get(key).copied()
    }
}

/// Arms by id: the first arm of each id (ids are unique in valid evidence).
#[derive(Debug, Clone)]
pub struct ArmsById<'a> {
    arms: &'a [Arm],
    index: FirstIndex<'a>,
}

impl<'a> ArmsById<'a> {
    pub fn new(arms: &'a [Arm]) -> Self {
        let mut index = FirstIndex::with_capacity(arms.len());
        for (i, arm) in arms.iter().enumerate() {
            index.insert_first(&arm.id, i);
        }
        ArmsById { arms, index }
    }

    /// The position of the first arm called `id`.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id)
    }

    /// The first arm called `id`.
    pub fn get(&self, id: &str) -> Option<&'a Arm> {
        self.position(id).and_then(|i| self.arms.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn the_first_position_of_each_key_is_kept() {
        let mut ix = FirstIndex::default();
        assert_eq!(ix.get("a"), None);
        assert_eq!(ix.insert_first("a", 0), None);
        assert_eq!(ix.insert_first("b", 1), None);
        assert_eq!(ix.insert_first("a", 2), Some(0));
        assert_eq!(
            (ix.get("a"), ix.get("b"), ix.get("c")),
            (Some(0), Some(1), None)
        );
    }

    #[test]
    fn arms_are_found_by_id_first_one_first() {
        let mut ev = sample::evidence();
        let first = ev.arms[0].id.clone();
        let mut dup = ev.arms[1].clone();
        dup.id = first.clone();
        ev.arms.push(dup);
        let by_id = ArmsById::new(&ev.arms);
        assert_eq!(by_id.position(&first), Some(0));
        assert_eq!(
            by_id.get(&ev.arms[1].id).map(|a| a.id.as_str()),
            Some(ev.arms[1].id.as_str())
        );
        assert!(by_id.get("no-such-arm").is_none());
    }
}
