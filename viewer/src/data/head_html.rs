//! Text the page and the page as the site writes it ([`crate::written`]) share: the
//! title line, and escaping for HTML.

/// The page's title line (the viewer's header says the same).
pub const TAGLINE: &str =
    "What a TLS handshake costs: full and resumed, TLS 1.3 and 1.2, against a plain TCP connect.";

/// `s` as HTML text (and attribute value): `& < > " '` escaped.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_html_text_and_attribute_values() {
        assert_eq!(
            text(r#"<img src=x onerror='a()'> & "b""#),
            "&lt;img src=x onerror=&#39;a()&#39;&gt; &amp; &quot;b&quot;"
        );
    }
}
