//! The terms the page's glossary explains (index.html, `#glossary`: prose that no run
//! changes lives there, not in the wasm), and where each is first used: the page's
//! sentences (the tagline, the run's conditions, the findings, the arm table's caption)
//! link a term's first use on the page to its entry.

/// Each term's entry (`#term-<id>`) and the words that use it, as they are written in
/// the findings (case counts: a sentence may start with one).
pub const TERMS: [(&str, &[&str]); 12] = [
    ("arm", &[" arm ", " arms "]),
    ("full", &["full handshake", "Full handshake"]),
    ("resumed", &["resum", "Resum"]),
    ("stateful", &["stateful"]),
    ("ticket", &["ticket"]),
    ("floor", &["crypto floor", "public-key"]),
    ("efficiency", &["efficiency", "Efficiency"]),
    ("hop", &[" hop"]),
    ("placement", &["cpu-same", "placement"]),
    ("steal", &["steal", "Steal"]),
    ("pq", &["x25519mlkem768", "hybrid"]),
    ("traced", &["traced"]),
];

/// `text` in pieces, each with the term it is the first use of on the page, if any:
/// `seen` holds the terms linked before (in page order) and gets this text's.
pub fn first_uses<'a>(
    text: &'a str,
    seen: &mut Vec<&'static str>,
) -> Vec<(&'a str, Option<&'static str>)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        // The earliest use in what is left of any term not linked yet.
        let next = TERMS
            .iter()
            .filter(|(id, _)| !seen.contains(id))
            .flat_map(|(id, words)| {
                words
                    .iter()
                    .filter_map(move |w| Some((shared::search::find(rest, w)?, w.len(), *id)))
            })
            .min_by_key(|(at, len, _)| (*at, usize::MAX - len));
        let Some((at, len, id)) = next else {
            break;
        };
        // A word written with its spaces around it links the word alone.
        let word = &rest[at..at + len];
        let lead = word.len() - word.trim_start().len();
        // The whole word: `resum` links "resuming", not half of it.
        let start = at + lead;
        let mut end = start + word.trim().len();
        while rest[end..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            end += 1;
        }
        let core = &rest[start..end];
        if at + lead > 0 {
            out.push((&rest[..at + lead], None));
        }
        out.push((core, Some(id)));
        seen.push(id);
        rest = &rest[at + lead + core.len()..];
    }
    if !rest.is_empty() {
        out.push((rest, None));
    }
    out
}

/// Every term but `ids`: as `seen`, a text links only those.
pub fn all_but(ids: &[&str]) -> Vec<&'static str> {
    TERMS
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !ids.contains(t))
        .collect()
}

/// The terms `texts` (in page order) link, after those in `seen`.
pub fn linked_by(texts: &[&str], mut seen: Vec<&'static str>) -> Vec<&'static str> {
    for t in texts {
        first_uses(t, &mut seen);
    }
    seen
}

/// The terms the page links before the findings of `ev` (the tagline, then the run
/// conditions the headline says), so the findings link only first uses.
pub fn before_findings(ev: &shared::Evidence) -> Vec<&'static str> {
    let tagline = linked_by(&[super::head_html::TAGLINE], Vec::new());
    let b = super::conditions::banner(ev);
    let mut texts = vec![b.title.as_str(), b.meaning];
    texts.extend(b.reasons.iter().map(String::as_str));
    linked_by(&texts, tagline)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terms_first_use_is_linked_once_on_the_page() {
        let mut seen = Vec::new();
        let a = first_uses(
            "A full handshake (rustls) takes 600 µs; resuming by ticket is faster.",
            &mut seen,
        );
        assert_eq!(
            a,
            [
                ("A ", None),
                ("full handshake", Some("full")),
                (" (rustls) takes 600 µs; ", None),
                ("resuming", Some("resumed")),
                (" by ", None),
                ("ticket", Some("ticket")),
                (" is faster.", None),
            ]
        );
        assert_eq!(seen, ["full", "resumed", "ticket"]);
        // Later sentences link only terms not linked yet; a spaced word links without
        // its spaces, a word's start the whole word.
        let b = first_uses("Resumed by ticket on each arm here.", &mut seen);
        assert_eq!(
            b,
            [
                ("Resumed by ticket on each ", None),
                ("arm", Some("arm")),
                (" here.", None)
            ]
        );
        // Nothing to link: the text whole.
        assert_eq!(first_uses("no term", &mut seen), [("no term", None)]);
        assert_eq!(first_uses("", &mut seen), []);
    }

    #[test]
    fn the_findings_start_from_the_terms_the_tagline_and_the_conditions_linked() {
        let mut ev = crate::data::testdata::sample();
        ev.environment.steal_percent = [("cpu1".to_string(), 16.5)].into();
        let before = before_findings(&ev);
        // The tagline says "full and resumed", the banner names the steal it measured.
        assert!(before.contains(&"resumed"), "{before:?}");
        assert!(before.contains(&"steal"), "{before:?}");
        assert!(!before.contains(&"ticket"), "{before:?}");
    }

    #[test]
    fn every_term_has_an_entry_in_the_pages_glossary() {
        let page = include_str!("../../../index.html");
        for (id, words) in TERMS {
            assert!(
                page.contains(&format!("<dt id=\"term-{id}\">")),
                "index.html has no entry for {id}"
            );
            assert!(!words.is_empty());
        }
    }
}
