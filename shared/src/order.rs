//! One sort for every list the viewer orders: each `sort_by` with its own closure is
//! compiled again (about 4 KB of wasm each), so lists are ordered through [`order`],
//! compiled once, and [`sort_by`], which only moves items.

use std::cmp::Ordering;

/// The stable order of `n` items by `cmp` (of their indices).
///
/// A bottom-up merge sort of the indices, O(n log n): the standard library's stable sort
/// is faster on long runs but about 4 KB of the viewer's wasm (1.5 KB gzipped), and
/// nothing here sorts more than a few thousand items.
pub fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut merged = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in &mut merged[start..end] {
                // The left item first when the two are equal: stable.
                if j >= end || (i < mid && cmp(idx[i], idx[j]) != Ordering::Greater) {
                    *slot = idx[i];
                    i += 1;
                } else {
                    *slot = idx[j];
                    j += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut idx, &mut merged);
        width *= 2;
    }
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
    fn orders_as_the_standard_stable_sort_does() {
        // Keys with many ties, in lengths around the merge widths.
        for n in [0, 1, 2, 3, 5, 8, 9, 31, 64, 100, 1000] {
            let keys: Vec<u32> = (0..n as u32).map(|i| (i * 7919 + 13) % 17).collect();
            let ours = order(n, &|a, b| keys[a].cmp(&keys[b]));
            let mut std_order: Vec<usize> = (0..n).collect();
            std_order.sort_by_key(|&i| keys[i]);
            assert_eq!(ours, std_order, "n = {n}");
        }
    }

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
