//! One sort for every list the viewer orders: each `sort_by` with its own closure is
//! compiled again (about 4 KB of wasm each), so lists are ordered through [`order`],
//! compiled once, and [`sort_by`], which only moves items.

use std::cmp::Ordering;

/// The stable order of `n` items by `cmp` (of their indices).
pub fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|a, b| cmp(*a, *b));
    idx
}

/// Sorts `v` by `cmp`, stably (equal items keep their order).
pub fn sort_by<T>(v: &mut Vec<T>, cmp: &dyn Fn(&T, &T) -> Ordering) {
    let idx = order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(idx.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `v` and drops repeated items.
pub fn sort_dedup<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, &|a, b| a.cmp(b));
    v.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_and_dedups() {
        let mut v = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
        sort_by(&mut v, &|a, b| a.0.cmp(&b.0));
        assert_eq!(v, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
        let mut w = vec!["b", "a", "b", "c", "a"];
        sort_dedup(&mut w);
        assert_eq!(w, ["a", "b", "c"]);
        let mut e: Vec<u8> = Vec::new();
        sort_dedup(&mut e);
        assert!(e.is_empty());
    }
}
