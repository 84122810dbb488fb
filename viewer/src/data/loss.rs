//! Handshake time against loss, from a run made with `--rtt … --loss …` grids: one panel
//! per RTT, in each one curve per arm kind (its id without the loss and RTT suffixes,
//! e.g. one per key-exchange group or certificate), p50 and p95 at every loss rate. The
//! sentences that explain the tails are the collector's (`settings.extra.loss_findings`,
//! shown by [`super::findings`]): it has every connection's TCP counters to join with
//! its time, which a summary does not keep, and the bundle pays nothing for them.
//!
//! The loss is read from the arm id's `-loss<N>pct` suffix, which the collector writes
//! from the same value as the arm's `link.loss` (collector/src/measure/rtt.rs), as the
//! RTT views read `-rtt<N>ms`: so the wasm carries no reader for `link` (the bundle
//! budget).

use shared::Evidence;

use super::filter::ArmFilter;
use super::outcome::no_result;
use super::series::{without_rtt_suffix, Line, Point};

/// One RTT's panel: its curves, p50 then p95 of each (`label p50`, `label p95`).
#[derive(Debug, Clone, PartialEq)]
pub struct LossPanel {
    pub rtt_ms: f64,
    pub lines: Vec<Line>,
}

/// `(the id without it, the loss in percent)` of an id ending in `-loss<N>pct`.
pub fn loss_suffix(id: &str) -> Option<(&str, f64)> {
    let i = shared::search::rfind(id, "-loss")?;
    let n = id[i + 5..].strip_suffix("pct")?;
    // Digits by hand (float parsing would add its code to the wasm): the mantissa, then
    // one division by 10^decimals, so `0.3` is the f64 nearest 0.3.
    let (mut m, mut div, mut point) = (0.0, 1.0, false);
    for c in n.bytes() {
        match c {
            b'0'..=b'9' => {
                m = m * 10.0 + f64::from(c - b'0');
                if point {
                    div *= 10.0;
                }
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    (!n.is_empty() && n != ".").then(|| (&id[..i], m / div))
}

/// The curves' names without the id segments (`-`) all of them start with
/// (`tls13-full-ecdsa-p256-x25519`, `…-secp256r1` → `x25519`, `secp256r1`); one curve
/// keeps its whole name.
pub fn short_names(curves: &[&str]) -> Vec<String> {
    let first = curves.first().copied().unwrap_or_default();
    let mut common = 0;
    for (i, _) in first.match_indices('-').filter(|_| curves.len() > 1) {
        if !curves
            .iter()
            .all(|c| c.len() > i + 1 && c.starts_with(&first[..=i]))
        {
            break;
        }
        common = i + 1;
    }
    curves.iter().map(|c| c[common..].to_string()).collect()
}

/// What a loss chart draws of each cell: two lines per curve, the first solid, the
/// second dashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossView {
    /// The cell's p50 (with its CI) and p95.
    Percentiles,
    /// The medians of the cell's two populations (`Arm.populations`): connections of
    /// which the link dropped nothing, and the others. A cell's p50 lands between them,
    /// wherever the mix puts it.
    Populations,
}

/// A point's value and its CI, if any.
type Value = Option<(f64, Option<[f64; 2]>)>;

impl LossView {
    /// The label suffixes of a curve's two lines (solid, dashed).
    pub fn suffixes(self) -> [&'static str; 2] {
        match self {
            LossView::Percentiles => [" p50", " p95"],
            LossView::Populations => [" lost nothing, p50", " lost something, p50"],
        }
    }

    /// What the y axis shows.
    pub fn y_desc(self) -> &'static str {
        match self {
            LossView::Percentiles => "p50 (solid), p95 (dashed)",
            LossView::Populations => "p50: nothing lost (solid), rest (dashed)",
        }
    }

    /// The two values of arm `a` (whose latency is `l`).
    fn values(self, a: &shared::Arm, l: shared::LatencySummary) -> [Value; 2] {
        match self {
            LossView::Percentiles => [Some((l.p50, a.p50_ci95_us)), Some((l.p95, None))],
            LossView::Populations => {
                let Some(p) = &a.populations else {
                    return [None, None];
                };
                [p.nothing_dropped.p50_us, p.something_dropped.p50_us]
                    .map(|v| v.filter(|v| v.is_finite()).map(|v| (v, None)))
            }
        }
    }
}

/// The panels, RTT ascending, curves in the order first met, points by loss; empty unless
/// some arm with a result ran on a link with loss (at most 100%).
pub fn loss_panels(ev: &Evidence, filter: &ArmFilter) -> Vec<LossPanel> {
    panels(ev, filter, LossView::Percentiles)
}

/// The panels of `view`: as [`loss_panels`]; for [`LossView::Populations`] empty unless
/// some lossy cell was split into its populations.
pub fn panels(ev: &Evidence, filter: &ArmFilter, view: LossView) -> Vec<LossPanel> {
    // (curve, RTT, loss %, the view's two values) per arm of a loss grid.
    let mut cells = Vec::new();
    for a in ev.arms.iter().filter(|a| filter.matches(a)) {
        let (Some(rtt), Some(l), None) = (a.rtt_ms, a.latency_us, no_result(a)) else {
            continue;
        };
        if let Some((curve, loss)) = loss_suffix(without_rtt_suffix(&a.id)) {
            if loss <= 100.0 && rtt.is_finite() {
                cells.push((curve, rtt, loss, view.values(a, l)));
            }
        }
    }
    let split = |c: &(&str, f64, f64, [Value; 2])| c.3.iter().any(Option::is_some);
    if !cells.iter().any(|c| c.2 > 0.0 && split(c)) {
        return Vec::new();
    }
    // Sorted by RTT, then loss (one f64 sort in the wasm: shared::order); an RTT is
    // whole microseconds (the collector's unit) and a loss at most 100, so the key is unique.
    let key = |c: &(&str, f64, f64, [Value; 2])| c.1 * 1e6 + c.2;
    let mut keys: Vec<f64> = cells.iter().map(key).collect();
    shared::order::sort_f64(&mut keys);
    keys.dedup();
    let mut curves: Vec<&str> = Vec::new();
    for c in &cells {
        if !curves.contains(&c.0) {
            curves.push(c.0);
        }
    }
    let names = short_names(&curves);
    let mut panels: Vec<LossPanel> = Vec::new();
    for k in keys {
        for c in cells.iter().filter(|c| key(c) == k) {
            if panels.last().is_none_or(|p| p.rtt_ms != c.1) {
                let mut lines = Vec::new();
                for n in &names {
                    for which in view.suffixes() {
                        lines.push(Line {
                            label: format!("{n}{which}"),
                            points: Vec::new(),
                        });
                    }
                }
                panels.push(LossPanel { rtt_ms: c.1, lines });
            }
            let Some(p) = panels.last_mut() else { continue };
            let i = 2 * curves.iter().position(|n| *n == c.0).unwrap_or(0);
            for (j, v) in c.3.iter().enumerate() {
                if let Some((y, spread)) = *v {
                    p.lines[i + j].points.push(Point { x: c.2, y, spread });
                }
            }
        }
    }
    // Every panel has every curve (empty where its RTT lacks it), so a curve keeps its
    // place, and with it its colour, in every panel.
    panels
}

/// `5.6 ms`: an RTT to a tenth of a millisecond.
pub fn ms(rtt: f64) -> String {
    format!("{} ms", (rtt * 10.0).round() / 10.0)
}

#[cfg(test)]
#[path = "loss_tests.rs"]
mod tests;
