//! Row labels that fit their room and stay distinct: a label cut in the middle keeps
//! both ends of an arm id, but two ids that differ only in the middle
//! (`tls13-resumed-stateful-rsa2048-x25519`, `…-ticket-…`) would then read alike, so
//! those are cut around the place where they differ instead.

use super::shorten_middle;

/// The first and last char index (exclusive end) in which `a` differs from `b`.
fn differing(a: &[char], b: &[char]) -> (usize, usize) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (head, a.len().saturating_sub(tail).max(head + 1))
}

/// `text`'s chars `[from, from + room)` with `…` where it is cut, `max` chars in all.
fn window(text: &[char], from: usize, max: usize) -> String {
    let room = max.saturating_sub(2).max(1);
    let from = from.min(text.len().saturating_sub(room));
    let mut s = String::new();
    if from > 0 {
        s.push('…');
    }
    s.extend(text.iter().skip(from).take(room));
    if from + room < text.len() {
        s.push('…');
    }
    s
}

/// `labels` fitted to `max` characters each: cut in the middle, and where two different
/// labels would then read alike, each is cut around where it differs from the others.
pub fn fit_labels(labels: &[String], max: usize) -> Vec<String> {
    let mut out: Vec<String> = labels.iter().map(|l| shorten_middle(l, max)).collect();
    let chars: Vec<Vec<char>> = labels.iter().map(|l| l.chars().collect()).collect();
    // Labels that would read alike are neighbours once sorted by how they read (then by
    // the whole label): linear after one sort, so a page of 50,000 arms never compares
    // every label with every other.
    let by = shared::order::order(labels.len(), &|a, b| {
        out[a].cmp(&out[b]).then_with(|| chars[a].cmp(&chars[b]))
    });
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for group in by.chunk_by(|a, b| out[*a] == out[*b]) {
        // The distinct labels of the group, sorted (each with its copies): the latest
        // place where a label starts to differ from any other is where it differs from a
        // sorted neighbour.
        let distinct: Vec<&[usize]> = group.chunk_by(|a, b| chars[*a] == chars[*b]).collect();
        if distinct.len() < 2 {
            continue;
        }
        for (k, copies) in distinct.iter().enumerate() {
            let i = copies[0];
            let len = chars[i].len();
            let head = |j: usize| differing(&chars[i], &chars[j]).0;
            let mut start = 0;
            if k > 0 {
                start = head(distinct[k - 1][0]);
            }
            // Labels that extend this one share all of it: the first that does not.
            if let Some(j) = distinct[k + 1..]
                .iter()
                .map(|c| c[0])
                .find(|&j| head(j) < len)
            {
                start = start.max(head(j));
            }
            let start = if start < len { start } else { 0 };
            starts.extend(copies.iter().map(|&m| (m, start)));
        }
    }
    let room = max.saturating_sub(2).max(1);
    for (i, start) in starts {
        out[i] = window(&chars[i], start.saturating_sub(room / 3), max);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(labels: &[&str], max: usize) -> Vec<String> {
        let labels: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
        fit_labels(&labels, max)
    }

    #[test]
    fn labels_that_differ_in_the_middle_stay_distinct() {
        let ids = [
            "tls13-resumed-stateful-rsa2048-x25519",
            "tls13-resumed-ticket-rsa2048-x25519",
            "tls13-full-rsa2048-x25519",
            "tcp-connect",
        ];
        for max in [12, 16, 21, 30] {
            let out = fit(&ids, max);
            for (i, a) in out.iter().enumerate() {
                assert!(a.chars().count() <= max, "{a} longer than {max}");
                for b in &out[i + 1..] {
                    assert_ne!(a, b, "at {max}: {out:?}");
                }
            }
        }
        // Labels that fit are kept whole; plain middle cuts where they are distinct.
        assert_eq!(fit(&ids, 40)[0], ids[0]);
        assert_eq!(
            fit(&["short", "s_time-tls13-reuse-www-vs-rustls"], 15)[1],
            "s_time-…-rustls"
        );
        let out = fit(&ids, 21);
        assert!(
            out[0].contains("stateful") || out[0].contains("state"),
            "{out:?}"
        );
    }

    #[test]
    fn equal_labels_stay_equal() {
        assert_eq!(
            fit(&["same-long-label", "same-long-label"], 8),
            ["sam…abel", "sam…abel"]
        );
    }
}
