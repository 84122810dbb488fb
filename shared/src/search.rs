//! Substring search by a plain scan. `str::find(&str)`, `rfind`, `split` and `replace`
//! with a string pattern build core's two-way searcher, about 3 KB of the viewer's wasm
//! (a copy per crate); the needles searched for here are a few bytes long.

/// Byte offset of the first `needle` in `haystack`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
}

/// Byte offset of the last `needle` in `haystack`.
pub fn rfind(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(haystack.len());
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .rposition(|w| w == needle.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_as_str_does() {
        for (h, n) in [
            ("a at line 3 at line 4", " at line "),
            ("tls13-rtt-rtt5ms", "-rtt"),
            ("no", "-rtt"),
            ("", "x"),
            ("x", ""),
            ("é-rtté", "-rtt"),
            ("aaa", "aa"),
        ] {
            assert_eq!(find(h, n), h.find(n), "{h:?} {n:?}");
            assert_eq!(rfind(h, n), h.rfind(n), "{h:?} {n:?}");
        }
    }
}
