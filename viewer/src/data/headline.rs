//! The headline of one run, for the top of the page: cards (full handshake p50 per TLS
//! version with its CI and its multiple of a TCP connect, resume speedups per version and
//! mechanism, the post-quantum hybrid's price) and the arms of the two charts beside them
//! (p50/p95/p99 of the headline arms, and their resume speedups).
//!
//! The headline arms are the lab's own subject: rustls on both ends (a probe's: rustls
//! against the probed server), X25519 (else the first group the run has), every cert,
//! measured on plain loopback one connection at a time. Nothing is claimed that the
//! evidence does not hold: an arm with an error, a skip or no latencies gives no number.

use shared::{Arm, ComparisonKind, Evidence, KxGroup, Mode, Protocol, Stack};

use super::derive::SpeedupBar;
use super::format::{fmt_ci_ratio, fmt_ci_us, fmt_ratio, fmt_us};
use super::outcome::{bar, no_result, PercentileBar};

/// One card: a title and a line per cert (or per cert and mechanism).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadCard {
    pub title: &'static str,
    pub lines: Vec<HeadLine>,
    /// Where the chart behind the card is (an element id).
    pub chart: &'static str,
}

/// `rsa2048 · 662 µs · [650 µs – 671 µs] · 18.9× TCP connect`.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadLine {
    /// What the line is about, e.g. the cert (and the mechanism).
    pub what: String,
    /// The number, large.
    pub value: String,
    /// How sure, and against what, in a few words.
    pub detail: String,
    /// The same in full (shown on hover).
    pub more: String,
}

/// `1.24–1.64 ms` (one unit when both ends share it), or `no CI`.
fn span_us(ci: Option<[f64; 2]>) -> String {
    let Some([lo, hi]) = ci else {
        return "no CI".into();
    };
    let (a, b) = (fmt_us(lo), fmt_us(hi));
    match (a.rsplit_once(' '), b.rsplit_once(' ')) {
        (Some((x, u)), Some((y, v))) if u == v => format!("{x}–{y} {u}"),
        _ => format!("{a}–{b}"),
    }
}

/// `2.61–3.81×`, or `no CI`.
fn span_ratio(ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("{lo:.2}–{hi:.2}×"),
        None => "no CI".into(),
    }
}

/// Whether `a`'s latencies are results on plain loopback.
fn sound(a: &Arm) -> bool {
    a.error.is_none()
        && a.skipped.is_none()
        && a.latency_us.is_some()
        && a.rtt_ms.is_none()
        && a.capacity.is_none()
        && a.control_of.is_none()
        && a.early_data.is_none()
        && !a.ttfb
}

/// The server stack of the headline arms: rustls's own server, else a probed one.
fn headline_server(ev: &Evidence) -> Stack {
    let has = |s: Stack| {
        ev.arms
            .iter()
            .any(|a| a.client_stack == Stack::Rustls && a.server_stack == s)
    };
    if has(Stack::Rustls) {
        Stack::Rustls
    } else {
        Stack::Remote
    }
}

/// The classical group of the headline: X25519 when the run has it, else the first
/// group of a rustls-client arm.
fn headline_group(ev: &Evidence) -> Option<KxGroup> {
    let groups = ev.arms.iter().filter(|a| a.client_stack == Stack::Rustls);
    let mut groups = groups.filter_map(|a| a.kx_group);
    let first = groups.clone().find(|g| *g != KxGroup::X25519Mlkem768);
    if groups.any(|g| g == KxGroup::X25519) {
        Some(KxGroup::X25519)
    } else {
        first
    }
}

/// The arms of the headline: the kernel's TCP connect, then the headline stack's full
/// and resumed arms of the headline group, TLS 1.3 before TLS 1.2, full before resumed
/// (not skipped ones: e.g. a probe's 0-RTT arm the server refused; the table has them).
pub fn headline_arms(ev: &Evidence) -> Vec<&Arm> {
    let server = headline_server(ev);
    let group = headline_group(ev);
    let mut out: Vec<&Arm> = ev
        .arms
        .iter()
        .filter(|a| a.mode == Mode::Connect && a.client_stack == Stack::KernelTcp)
        .filter(|a| a.rtt_ms.is_none() && a.capacity.is_none())
        .take(1)
        .collect();
    for protocol in [Protocol::Tls13, Protocol::Tls12] {
        for mode in [Mode::Full, Mode::Resumed] {
            out.extend(ev.arms.iter().filter(|a| {
                a.client_stack == Stack::Rustls
                    && a.server_stack == server
                    && a.protocol == protocol
                    && a.mode == mode
                    && a.kx_group == group
                    && a.rtt_ms.is_none()
                    && a.capacity.is_none()
                    && a.control_of.is_none()
                    && a.early_data.is_none()
                    && a.skipped.is_none()
                    && !a.ttfb
            }));
        }
    }
    out
}

/// `TLS 1.3 ticket · rsa2048`: short, and distinct between the headline arms.
pub fn short_label(a: &Arm) -> String {
    let version = match a.protocol {
        Protocol::Tcp => return "TCP connect".into(),
        Protocol::Tls12 => "TLS 1.2",
        Protocol::Tls13 => "TLS 1.3",
    };
    let how = match (a.mode, a.resumption) {
        (Mode::Resumed, Some(r)) => r.as_str(),
        (Mode::Resumed, None) => "resumed",
        (m, _) => m.as_str(),
    };
    match a.cert {
        Some(c) => format!("{version} {how} · {c}"),
        None => format!("{version} {how}"),
    }
}

/// The percentile chart's bars of the headline arms.
pub fn headline_bars(ev: &Evidence) -> Vec<PercentileBar> {
    headline_arms(ev)
        .into_iter()
        .map(|a| bar(short_label(a), a))
        .collect()
}

/// The resume speedups of the headline arms, labelled `cert · mechanism`, TLS 1.2 beside
/// TLS 1.3; a resumed arm without a result says why instead of a ratio.
pub fn headline_speedups(ev: &Evidence) -> Vec<SpeedupBar> {
    let by_id = shared::ArmsById::new(&ev.arms);
    let apart = shared::conditions::RatiosApart::of_run(ev);
    let mut out: Vec<SpeedupBar> = Vec::new();
    for a in headline_arms(ev)
        .into_iter()
        .filter(|a| a.mode == Mode::Resumed)
    {
        let c = ev
            .comparisons
            .iter()
            .find(|c| c.kind == ComparisonKind::ResumeSpeedup && c.candidate == a.id);
        let full = c.and_then(|c| by_id.get(&c.baseline));
        let why = no_result(a).or_else(|| full.and_then(no_result));
        if c.is_none() && why.is_none() {
            continue;
        }
        out.push(SpeedupBar {
            group: format!("{} · {}", cert_name(a), mechanism_of(Some(a))),
            protocol: a.protocol,
            // Never NaN where there is no ratio: chart specs are compared for equality to
            // decide whether to draw again, and NaN never equals itself (the page would
            // redraw forever).
            ratio: c.map_or(0.0, |c| c.p50_ratio),
            ci: c.and_then(|c| c.ci95),
            no_result: why,
            apart: c.and_then(|c| apart.why(c)),
        });
    }
    super::derive::sort_speedups(&mut out);
    out
}

fn mechanism_of(a: Option<&Arm>) -> String {
    a.and_then(|a| a.resumption)
        .map_or_else(|| "–".into(), |r| r.to_string())
}

fn cert_name(a: &Arm) -> String {
    a.cert
        .map_or_else(|| "server's cert".into(), |c| c.to_string())
}

/// The full handshake card of `protocol`: per cert, the p50, its CI and × TCP connect.
fn full_card(ev: &Evidence, arms: &[&Arm], protocol: Protocol) -> Option<HeadCard> {
    let lines: Vec<HeadLine> = arms
        .iter()
        .filter(|a| a.protocol == protocol && a.mode == Mode::Full && sound(a))
        .filter_map(|a| {
            let p50 = a.latency_us?.p50;
            let tcp = ev
                .comparisons
                .iter()
                .find(|c| c.kind == ComparisonKind::TlsOverTcp && c.candidate == a.id);
            let mut more = format!("95% CI {}", fmt_ci_us(a.p50_ci95_us));
            let mut detail = format!("CI {}", span_us(a.p50_ci95_us));
            if let Some(c) = tcp {
                more += &format!(" · {} a TCP connect", fmt_ratio(c.p50_ratio));
                detail += &format!(" · {:.1}× TCP", c.p50_ratio);
                if let Some(ci) = c.ci95 {
                    more += &format!(" {}", fmt_ci_ratio(ci));
                }
            }
            Some(HeadLine {
                what: cert_name(a),
                value: fmt_us(p50),
                detail,
                more,
            })
        })
        .collect();
    let title = match protocol {
        Protocol::Tls12 => "TLS 1.2 full handshake (p50)",
        _ => "TLS 1.3 full handshake (p50)",
    };
    (!lines.is_empty()).then_some(HeadCard {
        title,
        lines,
        chart: "head-percentiles",
    })
}

/// The resumption card of `protocol`: per cert and mechanism, full / resumed p50.
fn resume_card(ev: &Evidence, arms: &[&Arm], protocol: Protocol) -> Option<HeadCard> {
    let by_id = shared::ArmsById::new(&ev.arms);
    let lines: Vec<HeadLine> = arms
        .iter()
        .filter(|a| a.protocol == protocol && a.mode == Mode::Resumed && sound(a))
        .filter_map(|a| {
            let c = ev
                .comparisons
                .iter()
                .find(|c| c.kind == ComparisonKind::ResumeSpeedup && c.candidate == a.id)?;
            let full = by_id.get(&c.baseline).filter(|f| sound(f))?;
            let ci = c.ci95.map_or_else(|| "no CI".into(), fmt_ci_ratio);
            Some(HeadLine {
                what: format!("{} · {}", cert_name(a), mechanism_of(Some(a))),
                value: fmt_ratio(c.p50_ratio),
                detail: format!("CI {}", span_ratio(c.ci95)),
                more: format!(
                    "{} faster; 95% CI {ci} · {} → {}",
                    fmt_ratio(c.p50_ratio),
                    fmt_us(full.latency_us?.p50),
                    fmt_us(a.latency_us?.p50)
                ),
            })
        })
        .collect();
    let title = match protocol {
        Protocol::Tls12 => "TLS 1.2 resumed: times faster (full ÷ resumed p50)",
        _ => "TLS 1.3 resumed: times faster (full ÷ resumed p50)",
    };
    (!lines.is_empty()).then_some(HeadCard {
        title,
        lines,
        chart: "head-speedups",
    })
}

/// Whether `a` is a TLS 1.3 full handshake of rustls against `server` with group `g`, with
/// a result: what the hybrid's card compares.
fn hybrid_full(a: &Arm, server: Stack, g: KxGroup) -> bool {
    a.client_stack == Stack::Rustls
        && a.server_stack == server
        && a.protocol == Protocol::Tls13
        && a.mode == Mode::Full
        && a.kx_group == Some(g)
        && sound(a)
}

/// The arms the hybrid's card reads: the headline stack's TLS 1.3 full handshakes with
/// X25519MLKEM768 and with X25519.
pub(crate) fn hybrid_arms(ev: &Evidence) -> Vec<&Arm> {
    let server = headline_server(ev);
    ev.arms
        .iter()
        .filter(|a| {
            hybrid_full(a, server, KxGroup::X25519Mlkem768)
                || hybrid_full(a, server, KxGroup::X25519)
        })
        .collect()
}

/// The hybrid's price: per cert, TLS 1.3 full p50 with X25519MLKEM768 against X25519.
fn hybrid_card(ev: &Evidence) -> Option<HeadCard> {
    let server = headline_server(ev);
    let full = |a: &&Arm, g: KxGroup| hybrid_full(a, server, g);
    let lines: Vec<HeadLine> = ev
        .arms
        .iter()
        .filter(|a| full(a, KxGroup::X25519Mlkem768))
        .filter_map(|pq| {
            let x = ev
                .arms
                .iter()
                .find(|a| full(a, KxGroup::X25519) && a.cert == pq.cert)?;
            let (p, q) = (pq.latency_us?.p50, x.latency_us?.p50);
            Some(HeadLine {
                what: cert_name(pq),
                value: format!(
                    "{}{}",
                    if p >= q { "+" } else { "−" },
                    fmt_us((p - q).abs())
                ),
                detail: format!("{} of X25519's", fmt_ratio(p / q)),
                more: format!(
                    "{} vs {}; 95% CIs {} and {}",
                    fmt_us(p),
                    fmt_us(q),
                    fmt_ci_us(pq.p50_ci95_us),
                    fmt_ci_us(x.p50_ci95_us)
                ),
            })
        })
        .collect();
    (!lines.is_empty()).then_some(HeadCard {
        title: "Post-quantum hybrid: TLS 1.3 full p50, X25519MLKEM768 − X25519",
        lines,
        chart: "table-section",
    })
}

/// The headline cards of `ev`, in reading order; empty when it has no headline arm.
pub fn headline_cards(ev: &Evidence) -> Vec<HeadCard> {
    let arms = headline_arms(ev);
    [
        full_card(ev, &arms, Protocol::Tls13),
        full_card(ev, &arms, Protocol::Tls12),
        resume_card(ev, &arms, Protocol::Tls13),
        resume_card(ev, &arms, Protocol::Tls12),
        hybrid_card(ev),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::{sample, with_tls12};
    use shared::{CertKind, Comparison};

    #[test]
    fn cards_carry_the_evidence_numbers() {
        let mut ev = with_tls12();
        ev.comparisons.push(Comparison {
            kind: ComparisonKind::TlsOverTcp,
            baseline: ev.arms[0].id.clone(),
            candidate: ev.arms[1].id.clone(),
            p50_ratio: 19.05,
            ci95: Some([18.0, 20.0]),
            ci_unavailable: None,
            basis: None,
        });
        let cards = headline_cards(&ev);
        let titles: Vec<&str> = cards.iter().map(|c| c.title).collect();
        assert_eq!(
            titles,
            [
                "TLS 1.3 full handshake (p50)",
                "TLS 1.2 full handshake (p50)",
                "TLS 1.3 resumed: times faster (full ÷ resumed p50)",
                "TLS 1.2 resumed: times faster (full ÷ resumed p50)",
            ]
        );
        let l = &cards[0].lines[0];
        assert_eq!(
            (l.what.as_str(), l.value.as_str()),
            ("ecdsa-p256", "400 µs")
        );
        assert_eq!(l.detail, "CI 390–450 µs · 19.1× TCP");
        assert!(
            l.more.contains("19.05× a TCP connect [18.00× – 20.00×]"),
            "{}",
            l.detail
        );
        let r = &cards[2].lines[0];
        assert_eq!(r.what, "ecdsa-p256 · ticket");
        assert_eq!(
            (r.value.as_str(), r.detail.as_str()),
            ("2.00×", "CI 1.50–2.50×")
        );
        assert!(r.more.contains("400 µs → 200 µs"), "{}", r.more);
    }

    #[test]
    fn an_arm_with_an_error_makes_no_card_line() {
        let mut ev = sample();
        ev.arms[2].error = Some("0 of 4 connections resumed".into());
        let cards = headline_cards(&ev);
        assert!(cards.iter().all(|c| !c.title.contains("resumed")));
        // Its bar says why; no speedup is drawn.
        assert!(headline_bars(&ev)[2].no_result.is_some());
        let s = headline_speedups(&ev);
        assert!(s.iter().all(|b| b.no_result.is_some()));
        // A chart spec must equal itself (the page redraws on change): no NaN.
        assert!(s.iter().all(|b| b.ratio.is_finite()), "{s:?}");
        ev.comparisons.clear();
        let s = headline_speedups(&ev);
        assert!(
            !s.is_empty() && s.iter().all(|b| b.ratio.is_finite()),
            "{s:?}"
        );
    }

    #[test]
    fn the_hybrid_price_is_against_x25519_of_the_same_cert() {
        let mut ev = sample();
        let mut pq = ev.arms[1].clone();
        pq.id = "tls13-full-ecdsa-p256-x25519mlkem768".into();
        pq.kx_group = Some(KxGroup::X25519Mlkem768);
        pq.latency_us.as_mut().unwrap().p50 = 460.0;
        ev.arms.push(pq);
        let mut other = ev.arms[1].clone();
        other.id = "tls13-full-rsa2048-x25519".into();
        other.cert = Some(CertKind::Rsa2048);
        ev.arms.push(other);
        let cards = headline_cards(&ev);
        let h = cards
            .iter()
            .find(|c| c.title.starts_with("Post-quantum"))
            .unwrap();
        assert_eq!(h.lines.len(), 1);
        assert_eq!(h.lines[0].value, "+60.0 µs");
        assert!(
            h.lines[0].detail.starts_with("1.15×"),
            "{}",
            h.lines[0].detail
        );
        // The hybrid is not a headline bar; labels are short and distinct.
        let labels: Vec<String> = headline_bars(&ev).into_iter().map(|b| b.label).collect();
        assert_eq!(
            labels,
            [
                "TCP connect",
                "TLS 1.3 full · ecdsa-p256",
                "TLS 1.3 full · rsa2048",
                "TLS 1.3 ticket · ecdsa-p256"
            ]
        );
    }
}
