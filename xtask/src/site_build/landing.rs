//! The page as the site serves it: `index.html` naming the head of the run it opens on
//! and carrying that run's cards and headline charts, written in.

use anyhow::{bail, Result};

/// The page's preload of the history, after which the landing run's head is named.
const HISTORY_PRELOAD: &str =
    r#"<link rel="preload" href="results/history.json" as="fetch" crossorigin>"#;

/// Where the page takes the landing run's cards.
const STATIC_HEAD: &str = "<!-- static head -->";

/// `page` naming the head of the run it opens on ([`viewer::data::pick::landing_head`])
/// as `<link id="landing-head">` (the browser fetches it while the viewer loads, and the
/// viewer draws the headline from it in its first view), with that run's cards written in
/// ([`viewer::written::static_head`], from the head `read` gives for its URL).
/// Unchanged when there is no run.
pub(super) fn with_landing_head(
    page: &str,
    history: shared::History,
    read: impl FnOnce(&str) -> Option<shared::Evidence>,
) -> Result<String> {
    let Some(url) = viewer::data::pick::landing_head(history) else {
        return Ok(page.to_string());
    };
    if !page.contains(HISTORY_PRELOAD) || !page.contains(STATIC_HEAD) {
        bail!("index.html no longer has `{HISTORY_PRELOAD}` and `{STATIC_HEAD}`");
    }
    let page = match read(&url) {
        Some(head) => page.replacen(STATIC_HEAD, &viewer::written::static_head(&head), 1),
        None => page.to_string(),
    };
    let attr = viewer::data::head_html::text(&url);
    let link = format!(
        "{HISTORY_PRELOAD}\n<link rel=\"preload\" id=\"landing-head\" href=\"{attr}\" as=\"fetch\" crossorigin>"
    );
    Ok(page.replacen(HISTORY_PRELOAD, &link, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::root;

    #[test]
    fn the_page_names_the_landing_runs_head_with_its_file_name_escaped() {
        let page = std::fs::read_to_string(root().join("index.html")).unwrap();
        let mut b = shared::HistoryBuilder::default();
        b.run("a\"<b>&.json", &shared::sample::evidence());
        let mut asked = None;
        let out = with_landing_head(&page, b.finish(), |url| {
            asked = Some(url.to_string());
            Some(shared::sample::evidence())
        })
        .unwrap();
        assert_eq!(asked.as_deref(), Some("results/heads/a\"<b>&.json"));
        assert!(
            out.contains(r#"<link rel="preload" id="landing-head" href="results/heads/a&quot;&lt;b&gt;&amp;.json" as="fetch" crossorigin>"#),
            "{}",
            &out[..out.len().min(2000)]
        );
        assert_eq!(out.matches("id=\"landing-head\"").count(), 1);
        // The run's cards, in place of the marker.
        assert!(!out.contains(STATIC_HEAD));
        assert_eq!(out.matches("<main id=\"static-head\">").count(), 1);
        assert!(out.contains("TLS 1.3 full handshake (p50)"));
        // A head that cannot be read: no cards, the page still names it.
        let mut b = shared::HistoryBuilder::default();
        b.run("a.json", &shared::sample::evidence());
        let out = with_landing_head(&page, b.finish(), |_| None).unwrap();
        assert!(out.contains("id=\"landing-head\"") && !out.contains("id=\"static-head\""));
        // No run: the page as it is.
        assert_eq!(
            with_landing_head(&page, Default::default(), |_| None).unwrap(),
            page
        );
        assert!(with_landing_head(
            "<html>",
            {
                let mut b = shared::HistoryBuilder::default();
                b.run("a.json", &shared::sample::evidence());
                b.finish()
            },
            |_| None
        )
        .is_err());
    }
}
