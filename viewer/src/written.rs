//! The headline of the run a site opens on, as HTML written into the page by `cargo xtask
//! site` (native builds only): the reader sees the cards and the two headline charts as
//! soon as the page itself has arrived, before the viewer (a few hundred KB of wasm) has
//! loaded and drawn its own. The viewer replaces them with its own headline, made by the
//! same functions ([`headline_cards`], the chart code), as soon as that is drawn. Every
//! text from the evidence is escaped: it is shown as text, never read as markup.

use plotters::prelude::{IntoDrawingArea, SVGBackend};
use shared::Evidence;

use crate::charts::recorder::Recorder;
use crate::charts::spec::{paint, ChartSpec};
use crate::charts::surface::Surface;
use crate::data::format::short;
use crate::data::head_html::{text, TAGLINE};
use crate::data::headline::{headline_bars, headline_cards, headline_speedups};
use crate::data::load::short_time;
use crate::data::scale::Scale;

/// The run's conditions banner ([`crate::data::conditions`]) as HTML, as the viewer draws it.
pub fn conditions_html(head: &Evidence) -> String {
    let b = crate::data::conditions::banner(head);
    let mut out = format!(
        "<div id=\"run-conditions\" class=\"{}\" role=\"note\"><p><strong>{}</strong> {}</p>",
        b.class(),
        text(&b.title),
        text(b.meaning)
    );
    if !b.reasons.is_empty() {
        out += "<ul>";
        for r in &b.reasons {
            out += &format!("<li>{}</li>", text(r));
        }
        out += "</ul>";
    }
    out + "</div>"
}

/// The width (CSS px) the written charts are drawn at: one of the two side by side at
/// 1400 px. They scale to their box (`viewBox`) until the viewer draws its own.
pub const STATIC_CHART_W: u32 = 640;

/// `<main id="static-head">`: title, which run, and the headline cards of `head` (a run's
/// head, [`crate::data::head::head_of`], or its summary), in the viewer's own markup and classes.
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
         {}<section class=\"headline\"><div class=\"cards\">",
        text(TAGLINE),
        text(&kind_cap),
        text(&short(&head.environment.hostname)),
        text(&short(&run.id)),
        text(&short(&short_time(&run.started_at))),
        if run.complete {
            "."
        } else {
            " — interrupted: some arms have fewer samples than asked."
        },
        conditions_html(head)
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
    out += "</div><div class=\"head-charts\">";
    let charts = [
        (
            "Full and resumed handshakes: p50, p95, p99",
            "p50, p95 and p99 per headline arm (rustls on both ends), with the p50's 95% CI",
            ChartSpec::Percentiles(headline_bars(head), Scale::default(), None),
        ),
        (
            "Resume speedups: full ÷ resumed p50",
            "how many times faster a resumed handshake is than a full one, per cert and mechanism, TLS 1.2 beside TLS 1.3",
            ChartSpec::Speedups(headline_speedups(head)),
        ),
    ];
    for (title, label, spec) in charts {
        let empty = match &spec {
            ChartSpec::Percentiles(b, ..) => b.iter().all(|b| b.percentiles.is_none()),
            other => other.items() == 0,
        };
        if empty {
            continue;
        }
        match svg_of(&spec) {
            Ok(svg) => {
                out += &format!(
                    "<div class=\"chart\"><h4>{}</h4><div role=\"img\" aria-label=\"{}\">{svg}</div></div>",
                    text(title),
                    text(label)
                )
            }
            // Not drawn here, drawn by the viewer: the page loses nothing but a head start.
            Err(_) => continue,
        }
    }
    out += "</div><p class=\"hint\" role=\"status\">Loading the viewer…</p></section></main>";
    out
}

/// `spec` drawn by the viewer's own chart code as an SVG document [`STATIC_CHART_W`] wide
/// (plotters' SVG backend escapes every text and attribute it writes).
fn svg_of(spec: &ChartSpec) -> Result<String, String> {
    let mut svg = String::new();
    {
        let area = Surface::<Recorder>::Svg(SVGBackend::with_string(
            &mut svg,
            (STATIC_CHART_W, spec.height()),
        ))
        .into_drawing_area();
        paint(&area, spec, 1.0)?;
        area.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::with_tls12;

    #[test]
    fn text_from_the_evidence_is_escaped() {
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
    fn the_run_conditions_come_before_any_card_with_every_reason() {
        let mut ev = with_tls12();
        ev.environment.load_average.before = [0.0; 3];
        ev.environment.steal_percent = [("cpu1".to_string(), 16.5)].into();
        let html = static_head(&ev);
        let banner = html
            .find("id=\"run-conditions\" class=\"conditions unreliable\"")
            .expect("an unreliable banner");
        let first_card = html.find("class=\"head-card\"").expect("cards");
        assert!(banner < first_card);
        // The stored verdict wins over the rules applied again (a head keeps few arms).
        let mut stored = shared::conditions::of(&ev);
        stored.level = shared::Level::Quiet;
        stored.reasons.clear();
        ev.run.conditions = Some(stored);
        assert!(static_head(&ev).contains("class=\"conditions quiet\""));
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

    #[test]
    fn the_static_head_draws_the_two_headline_charts_as_svg() {
        let ev = with_tls12();
        let html = static_head(&ev);
        // Two whole SVG documents, as wide as written, under the viewer's own titles.
        assert_eq!(html.matches("<svg width=\"640\"").count(), 2, "{html}");
        assert_eq!(html.matches("</svg>").count(), 2, "{html}");
        let percentiles = html.find("<h4>Full and resumed handshakes: p50, p95, p99</h4>");
        let speedups = html.find("<h4>Resume speedups: full ÷ resumed p50</h4>");
        assert!(percentiles.unwrap() < speedups.unwrap(), "{html}");
        // The headline arms of with_tls12, by the labels the viewer gives them, and its
        // TLS 1.2 resume speedup (1.7×, as the comparison says).
        for label in [
            "TCP connect",
            "TLS 1.3 full · ecdsa-p256",
            "TLS 1.2 full · ecdsa-p256",
            "TLS 1.2 ticket · ecdsa-p256",
        ] {
            assert!(
                html.contains(&format!(">\n{label}\n</text>")),
                "{label} in {html}"
            );
        }
        assert!(html.contains(">\n1.70×\n</text>"), "{html}");
    }

    #[test]
    fn a_run_without_a_resume_speedup_has_the_percentile_chart_alone() {
        let mut ev = with_tls12();
        ev.comparisons.clear();
        ev.arms.retain(|a| a.mode != shared::Mode::Resumed);
        let html = static_head(&ev);
        assert_eq!(html.matches("</svg>").count(), 1, "{html}");
        assert!(!html.contains("Resume speedups"), "{html}");
    }
}
