//! The JSON path (`arms[1].latency_us.p50`) of a position in a JSON text.
//!
//! serde_json says where a typed read failed as a line and column; people want the
//! field. `serde_path_to_error` gives it by wrapping every step of the read, which made
//! the viewer's wasm 13.5 KB (gzipped) larger; the same path comes from walking the text
//! up to that position once, here, only when a read has failed.

/// One open container while walking the text.
enum Open {
    /// An object and the key of its current field (None before the first key).
    Object(Option<String>),
    /// An array and the index of its current element.
    Array(usize),
}

/// The path of the value at 1-based (`line`, `column`) of `text`: keys joined by `.`,
/// array indices as `[i]`. For a position just past a value or a closing bracket it is
/// the path of that value (serde_json reports errors there), e.g. `arms[1].latency_us`
/// for a field missing from that object.
pub fn path_at(text: &str, line: usize, column: usize) -> String {
    let end = offset(text, line, column);
    let bytes = &text.as_bytes()[..end.min(text.len())];
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    // The position is inside this string: it is the value at the path.
                    break;
                }
                let s = &text[start..i];
                // A key: the next non-space character is ':'.
                let rest = &text.as_bytes()[(i + 1).min(text.len())..];
                let is_key = rest
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_some_and(|b| *b == b':');
                if let (true, Some(Open::Object(key))) = (is_key, stack.last_mut()) {
                    *key = Some(unescape(s));
                }
            }
            b'{' => stack.push(Open::Object(None)),
            b'[' => stack.push(Open::Array(0)),
            // Past the end of a container, the error is about the container itself: keep
            // it when it is the last thing read.
            b'}' | b']' if i + 1 < bytes.len() => {
                stack.pop();
            }
            b',' => {
                if let Some(Open::Array(n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for (depth, open) in stack.iter().enumerate() {
        match open {
            Open::Object(Some(key)) => {
                if depth > 0 {
                    path.push('.');
                }
                path.push_str(key);
            }
            Open::Object(None) => {}
            Open::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    // A closing bracket read last belongs to the container itself, not to its field.
    if bytes.last().is_some_and(|b| *b == b'}' || *b == b']') {
        if let Some(Open::Object(Some(key))) = stack.last() {
            let cut = path.len() - key.len();
            path.truncate(cut.saturating_sub(usize::from(stack.len() > 1)));
        }
    }
    path
}

/// Byte offset just past 1-based (`line`, `column`).
fn offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(n) => start += n + 1,
            None => return text.len(),
        }
    }
    (start + column).min(text.len())
}

/// A JSON key as text (escapes of quotes and backslashes resolved; keys here are plain).
fn unescape(s: &str) -> String {
    // By hand, not `replace`: a string pattern costs the wasm core's two-way searcher.
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('"' | '\\'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where serde_json says a typed read of `text` fails, as a path.
    fn path_of_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> String {
        let e = serde_json::from_str::<T>(text).unwrap_err();
        path_at(text, e.line(), e.column())
    }

    // The fields are only read by serde (the test is about where a read fails), never by
    // code, which the dead-code lint would flag: allowed for these three test types.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        p50: f64,
        p95: f64,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)] // read by serde only (see `Inner`)
    struct Item {
        id: String,
        latency: Inner,
        samples: Vec<f64>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)] // read by serde only (see `Inner`)
    struct Top {
        version: u32,
        items: Vec<Item>,
    }

    const GOOD: &str = r#"{"version": 1, "items": [
        {"id": "a", "latency": {"p50": 1.0, "p95": 2.0}, "samples": [1.0, 2.0]},
        {"id": "b \"q\"", "latency": {"p50": 1.0, "p95": 2.0}, "samples": [3.0]}]}"#;

    #[test]
    fn a_good_text_reads() {
        serde_json::from_str::<Top>(GOOD).unwrap();
    }

    #[test]
    fn wrong_types_point_at_their_field() {
        let t = GOOD.replace(
            r#""p95": 2.0}, "samples": [3.0]"#,
            r#""p95": "x"}, "samples": [3.0]"#,
        );
        assert_eq!(path_of_error::<Top>(&t), "items[1].latency.p95");
        let t = GOOD.replace("[3.0]", r#"[3.0, "y"]"#);
        assert_eq!(path_of_error::<Top>(&t), "items[1].samples[1]");
        let t = GOOD.replace(r#""version": 1"#, r#""version": -1"#);
        assert_eq!(path_of_error::<Top>(&t), "version");
        let t = GOOD.replace(r#""id": "a""#, r#""id": 7"#);
        assert_eq!(path_of_error::<Top>(&t), "items[0].id");
    }

    #[test]
    fn a_missing_field_points_at_its_object() {
        let t = GOOD.replace(
            r#""p50": 1.0, "p95": 2.0}, "samples": [3.0]"#,
            r#""p50": 1.0}, "samples": [3.0]"#,
        );
        assert_eq!(path_of_error::<Top>(&t), "items[1].latency");
        let t = GOOD.replace(r#""id": "a", "#, "");
        assert_eq!(path_of_error::<Top>(&t), "items[0]");
    }

    #[test]
    fn keys_with_quotes_and_positions_past_the_end_are_safe() {
        assert_eq!(path_at(r#"{"a\"b": 1}"#, 1, 9), "a\"b");
        assert_eq!(path_at("{}", 9, 9), "");
        assert_eq!(path_at("", 1, 1), "");
        assert_eq!(path_at("[1, [2, 3", 1, 8), "[1][1]");
    }
}
