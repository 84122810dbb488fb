//! The headline of the run a site opens on, as HTML written into the page by `cargo xtask
//! site`: the reader sees the cards as soon as the page itself has arrived, before the
//! viewer (a few hundred KB of wasm) has loaded and drawn its own. The viewer replaces it
//! with its own headline, made by the same functions ([`headline_cards`]), as soon as that
//! is drawn. Every text from the evidence is escaped: it is shown as text, never read as
//! markup.

use shared::Evidence;

use super::format::short;
use super::headline::headline_cards;
use super::load::short_time;

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

/// `<main id="static-head">`: title, which run, and the headline cards of `head` (a run's
/// head, [`super::head::head_of`], or its summary), in the viewer's own markup and classes.
pub fn static_head(head: &Evidence) -> String {
    let run = &head.run;
    let kind = run.kind.map_or("A run", |k| k.words());
    let mut kind_cap = kind.to_string();
    if let Some(first) = kind_cap.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    let mut out = format!(
        "<main id=\"static-head\"><header class=\"top\"><h1>Handshake Lab</h1><p class=\"tagline\">{}</p>\
         <div class=\"run-pick\"><p class=\"hint\">{} on host <strong>{}</strong>, run <code>{}</code>, started {} UTC{}</p></div></header>\
         <section class=\"headline\"><div class=\"cards\">",
        text(TAGLINE),
        text(&kind_cap),
        text(&short(&head.environment.hostname)),
        text(&short(&run.id)),
        text(&short(&short_time(&run.started_at))),
        if run.complete {
            "."
        } else {
            " — interrupted: some arms have fewer samples than asked."
        }
    );
    for c in headline_cards(head) {
        out += &format!(
            "<a class=\"head-card\" href=\"#{}\"><h3>{}</h3><dl>",
            text(c.chart),
            text(c.title)
        );
        for l in &c.lines {
            out += &format!(
                "<dt>{}</dt><dd class=\"big\">{}</dd><dd class=\"how\" title=\"{}\">{}</dd>",
                text(&l.what),
                text(&l.value),
                text(&l.more),
                text(&l.detail)
            );
        }
        out += "</dl></a>";
    }
    out += "</div><p class=\"hint\" role=\"status\">Loading the charts…</p></section></main>";
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::with_tls12;

    #[test]
    fn text_from_the_evidence_is_escaped() {
        assert_eq!(
            text(r#"<img src=x onerror='a()'> & "b""#),
            "&lt;img src=x onerror=&#39;a()&#39;&gt; &amp; &quot;b&quot;"
        );
        let mut ev = with_tls12();
        ev.environment.hostname = "<script>alert(1)</script>".into();
        let html = static_head(&ev);
        assert!(!html.contains("<script>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
    }

    #[test]
    fn the_static_head_carries_every_card_line_of_the_viewers_headline() {
        let ev = with_tls12();
        let html = static_head(&ev);
        let cards = headline_cards(&ev);
        assert_eq!(html.matches("class=\"head-card\"").count(), cards.len());
        for c in &cards {
            assert!(
                html.contains(&format!("<h3>{}</h3>", text(c.title))),
                "{html}"
            );
            for l in &c.lines {
                assert!(
                    html.contains(&format!("<dd class=\"big\">{}</dd>", text(&l.value))),
                    "{html}"
                );
            }
        }
        // The full TLS 1.3 card's line as the viewer shows it (with_tls12: 400 µs).
        assert!(
            html.contains("<dt>ecdsa-p256</dt><dd class=\"big\">400 µs</dd>"),
            "{html}"
        );
        assert!(html.contains(&ev.run.id), "{html}");
        assert!(html.starts_with("<main id=\"static-head\">") && html.ends_with("</main>"));
    }
}
