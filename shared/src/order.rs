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

/// Sorts `v` ascending by [`f64::total_cmp`]. Items equal by `total_cmp` have the same
/// bits, so any sort gives the same result: natively the standard library's, in the
/// viewer's wasm a heapsort of its own (a few hundred bytes, where the standard unstable
/// sort compiles to about 4 KB).
pub fn sort_f64(v: &mut [f64]) {
    if cfg!(target_arch = "wasm32") {
        heap_sort_f64(v);
    } else {
        v.sort_unstable_by(f64::total_cmp);
    }
}

fn heap_sort_f64(v: &mut [f64]) {
    // Sift `v[root]` down the max-heap `v[..end]`.
    let sift = |v: &mut [f64], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && v[child].total_cmp(&v[child + 1]).is_lt() {
            child += 1;
        }
        if v[root].total_cmp(&v[child]).is_ge() {
            break;
        }
        v.swap(root, child);
        root = child;
    };
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
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
    #[test]
    fn heap_sort_orders_as_total_cmp_does() {
        for n in [0usize, 1, 2, 3, 7, 64, 1001] {
            let mut v: Vec<f64> = (0..n)
                .map(|i| ((i * 7919 + 13) % 97) as f64 - 40.5)
                .collect();
            if n > 3 {
                v[1] = f64::NAN;
                v[2] = -0.0;
                v[3] = 0.0;
            }
            let mut std = v.clone();
            std.sort_unstable_by(f64::total_cmp);
            heap_sort_f64(&mut v);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&v), bits(&std), "n = {n}");
        }
    }
}
